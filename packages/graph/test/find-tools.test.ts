import { join } from 'node:path';
import { loadRegistry, SkillPolicy } from '@birdie/registry';
import type { openStore } from '@birdie/store';
import { makeTempDir, writeTree } from '@birdie/test-utils';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { describe, expect, it } from 'vitest';
import { type AgentOptions, createAgent } from '../src/index.js';
import { type ChatRequest, fakeOpenAI, type Reply } from './fake-openai.js';
import { manySkills, REALISTIC_SKILLS, skillFiles, WRITTEN_QUERIES } from './fixtures/many-tools/tools.mjs';
import { collect, ofType, toolMessages, useCleanups } from './helpers.js';

const cleanups = useCleanups();

/** A session with `total` enabled tool skills (the hand-written ones and generated look-alikes). */
async function manyTools(total = 1000) {
  const dir = await makeTempDir('birdie-find-tools-');
  cleanups.push(() => dir.cleanup());
  await writeTree(dir.path, skillFiles(manySkills(total)));
  const registry = await loadRegistry({ dirs: [dir.path] });
  return { dir, registry, policy: new SkillPolicy(registry) };
}

type Fixture = Awaited<ReturnType<typeof manyTools>>;

/** Replies in order, then `done`; the server refuses more than 128 tools, as OpenAI does. */
async function server(replies: Reply[]) {
  let next = 0;
  return fakeOpenAI(cleanups, () => replies[next++] ?? { text: 'done' }, { maxTools: 128 });
}

function agentOver(
  fx: Fixture,
  model: BaseChatModel,
  options: AgentOptions = {},
  checkpointer?: ReturnType<typeof openStore>['checkpointer'],
) {
  const agent = createAgent({
    model,
    registry: fx.registry,
    policy: fx.policy,
    options: { cwd: fx.dir.path, ...options },
    ...(checkpointer ? { checkpointer } : {}),
  });
  cleanups.push(() => agent.close());
  return agent;
}

const toolNames = (request: ChatRequest | undefined) => (request?.tools ?? []).map((t) => t.function.name);
const find = (query: string, limit?: number): Reply => ({
  call: { name: 'find_tools', args: { query, ...(limit ? { limit } : {}) } },
});

describe('find_tools: many tools without binding them all', () => {
  it('works with 1,000 enabled tool skills against a server that refuses more than 128 tools', async () => {
    const fx = await manyTools();
    expect(fx.policy.allowedTools('s1').length).toBe(1000);
    const { requests, model } = await server([
      find('weather forecast for a city'),
      { call: { name: 'get_forecast', args: { input: 'Lisbon' } } },
      { text: 'Sunny.' },
    ]);
    const agent = agentOver(fx, model('gpt-test'));
    const events = await collect(agent.stream('will it rain in Lisbon this weekend?', { threadId: 's1' }));
    expect(ofType(events, 'error')).toEqual([]);
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    expect(requests).toHaveLength(3);
    for (const r of requests) {
      expect(r.tools?.length ?? 0).toBeLessThanOrEqual(40);
      expect(JSON.stringify(r.tools).length).toBeLessThanOrEqual(12_000);
    }
    expect(toolNames(requests[0])).toContain('find_tools');
    expect(toolNames(requests[0])).not.toContain('get_forecast');
    // What find_tools returned is bound on the next call.
    expect(toolNames(requests[1])).toContain('get_forecast');
    const [found, ran] = await toolMessages(agent, 's1');
    expect(found?.content).toContain('get_forecast');
    expect(ran?.status).toBe('success');
    expect(ran?.content).toBe('done: Lisbon');
    // The events say which tools each call was given.
    const selections = ofType(events, 'tool-selection');
    expect(selections).toHaveLength(3);
    expect(selections[0]?.held).toBeGreaterThan(900);
    expect(selections[1]?.found).toContain('get_forecast');
    expect(selections[1]?.bound).toEqual(toolNames(requests[1]));
  });

  it('binds everything with toolBudget: false, which that server refuses (the limit is real)', async () => {
    const fx = await manyTools();
    const { requests, model } = await server([{ text: 'hi' }]);
    const agent = agentOver(fx, model('gpt-test'), { toolBudget: false });
    const events = await collect(agent.stream('hello', { threadId: 's1' }));
    expect(requests[0]?.tools?.length).toBe(1000);
    expect(ofType(events, 'done')[0]?.status).toBe('error');
    expect(ofType(events, 'error')[0]?.error.message).toMatch(/maximum length 128/);
  });

  it('finds the right tool in the first 5 results for 20 written queries (repository fixtures)', async () => {
    const fx = await manyTools();
    // Each query is the first step of its own thread: the model searches with the user's words.
    const { model } = await fakeOpenAI(
      cleanups,
      (request) => {
        const last = request.messages.at(-1);
        return last?.role === 'user' ? find(String(last.content)) : { text: 'done' };
      },
      { maxTools: 128 },
    );
    const agent = agentOver(fx, model('gpt-test'));
    const misses: string[] = [];
    for (const [i, q] of WRITTEN_QUERIES.entries()) {
      await collect(agent.stream(q.query, { threadId: `q${i}` }));
      const [result] = await toolMessages(agent, `q${i}`);
      const names = [...String(result?.content).matchAll(/^- (\S+)/gm)].map((m) => m[1]);
      expect(names.length).toBeLessThanOrEqual(5);
      if (!names.includes(q.tool)) misses.push(`${q.query} → ${q.tool}: got ${names.join(', ')}`);
    }
    expect(misses).toEqual([]);
  });
});
