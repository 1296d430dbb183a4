import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { MemorySaver } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { type Agent, AgentError, createAgent } from '../src/index.js';
import { agentSetup, callTools, collect, ofType, toolMessages, toolSkill, useCleanups } from './helpers.js';

const cleanups = useCleanups();
const fixture = agentSetup(cleanups);

// A node: tool that reports the environment it was called with, and a bash: tool that prints two variables.
const ENV_TOOL = `export function show(_args, context) {
  return JSON.stringify({ env: context.env, fromProcess: process.env.BIRDIE_SESSION_ID ?? null });
}
`;
const files = {
  'probe/SKILL.md': toolSkill('probe', [
    { name: 'env_node', entrypoint: 'node:env.mjs#show' },
    { name: 'env_bash', entrypoint: 'bash:printf "%s|%s" "$BIRDIE_SESSION_ID" "$BIRDIE_SESSION_DIR"' },
  ]),
  'probe/env.mjs': ENV_TOOL,
};

async function setup() {
  const checkpointer = new MemorySaver();
  return { ...(await fixture(files, {}, { checkpointer })), checkpointer };
}

const toolOutputs = async (agent: Agent, thread: string) =>
  (await toolMessages(agent, thread)).map((m) => String(m.content));

describe('skill tools know their session', () => {
  it('a node: tool gets BIRDIE_SESSION_ID = thread id plus the turn toolEnv; a bash: child gets them too', async () => {
    const { model, agent } = await setup();
    model.respond(callTools([{ name: 'env_node' }, { name: 'env_bash' }])).respond(new AIMessage('seen'));
    const marker = '/tmp/birdie-sessions/thread-a-7c1e';
    const events = await collect(
      agent.stream('who am I?', {
        threadId: 'thread-a',
        toolEnv: { BIRDIE_SESSION_DIR: marker, BIRDIE_HOME: '/tmp/birdie-home' },
      }),
    );
    expect(ofType(events, 'done')).toEqual([{ type: 'done', status: 'ok' }]);
    const [node, bash] = await toolOutputs(agent, 'thread-a');
    expect(JSON.parse(node ?? '')).toEqual({
      env: { BIRDIE_SESSION_DIR: marker, BIRDIE_HOME: '/tmp/birdie-home', BIRDIE_SESSION_ID: 'thread-a' },
      // Nothing leaks through the shared process environment: the session travels in the call only.
      fromProcess: null,
    });
    expect(bash).toBe(`thread-a|${marker}`);
  });

  it('without toolEnv a tool still gets the thread id, and toolEnv cannot rename the session', async () => {
    const { model, agent } = await setup();
    model
      .respond(callTools([{ name: 'env_node' }]))
      .respond(new AIMessage('one'))
      .respond(callTools([{ name: 'env_node' }], ''))
      .respond(new AIMessage('two'));
    await collect(agent.stream('first', { threadId: 'plain' }));
    await collect(
      agent.stream('second', { threadId: 'plain', toolEnv: { BIRDIE_SESSION_ID: 'someone-else' } }),
    );
    const outputs = (await toolOutputs(agent, 'plain')).map((o) => JSON.parse(o).env);
    expect(outputs).toEqual([{ BIRDIE_SESSION_ID: 'plain' }, { BIRDIE_SESSION_ID: 'plain' }]);
  });

  it('the toolEnv of an approval resume reaches the approved call', async () => {
    const { model, agent } = await fixture({
      'probe/SKILL.md': toolSkill('probe', [
        { name: 'env_node', entrypoint: 'node:env.mjs#show', extra: 'approval: required\n' },
      ]),
      'probe/env.mjs': ENV_TOOL,
    });
    model.respond(callTools([{ name: 'env_node' }])).respond(new AIMessage('ok'));
    const asked = await collect(agent.stream('go', { threadId: 'ask', toolEnv: { A: 'first' } }));
    expect(ofType(asked, 'done')).toEqual([{ type: 'done', status: 'interrupted' }]);
    await collect(agent.resume('ask', { c1: { type: 'approve' } }, { toolEnv: { A: 'resumed' } }));
    const [output] = await toolOutputs(agent, 'ask');
    expect(JSON.parse(output ?? '').env).toEqual({ A: 'resumed', BIRDIE_SESSION_ID: 'ask' });
  });

  it('toolEnv is never written to a checkpoint', async () => {
    const { model, agent, checkpointer } = await setup();
    model.respond(callTools([{ name: 'env_bash' }])).respond(new AIMessage('done'));
    const marker = 'unique-marker-5d2f9a';
    await collect(agent.stream('go', { threadId: 'saved', toolEnv: { BIRDIE_SESSION_DIR: `/x/${marker}` } }));
    // The tool output echoes the marker into a ToolMessage, which is state; everything else must not hold it.
    const tuples = [];
    for await (const tuple of checkpointer.list({ configurable: { thread_id: 'saved' } })) tuples.push(tuple);
    expect(tuples.length).toBeGreaterThan(0);
    for (const tuple of tuples) {
      expect(JSON.stringify(tuple.config)).not.toContain(marker);
      expect(JSON.stringify(tuple.metadata)).not.toContain(marker);
      expect(JSON.stringify(tuple.checkpoint.channel_values?.loadedSkills ?? [])).not.toContain(marker);
      expect(JSON.stringify(Object.keys(tuple.checkpoint.channel_values ?? {}))).not.toContain(
        'birdie_tool_env',
      );
    }
  });

  it('refuses a malformed toolEnv before anything runs', () => {
    const agent = createAgent({
      model: fakeModel(),
      registry: { current: () => ({}) as never },
      policy: {} as never,
    });
    cleanups.push(() => agent.close());
    for (const toolEnv of [{ 'BAD NAME': 'x' }, { OK: 42 }, { OK: 'a\0b' }] as never[]) {
      expect(() => agent.stream('x', { threadId: 't', toolEnv })).toThrow(AgentError);
    }
  });
});
