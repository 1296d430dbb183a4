import { join } from 'node:path';
import { createScriptedModel, type ScriptedReply } from '@birdie/providers';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { describe, expect, it } from 'vitest';
import { type AgentOptions, type AgentSpec, type CreateAgentOptions, createAgent } from '../src/index.js';
import {
  agentSpec,
  alive,
  collect,
  knowledgeSkill,
  ofType,
  readPid,
  skillsFixture,
  stringArg,
  textOf,
  toolMessages,
  toolSkill,
  useCleanups,
  waitFor,
  withAgents,
} from './helpers.js';

const cleanups = useCleanups();

const REVIEWER = 'You are the reviewer. Check every claim against a source before you agree with it.';

interface Setup {
  files?: Record<string, string>;
  agents: AgentSpec[];
  script: ScriptedReply[];
  options?: AgentOptions;
  init?: Pick<CreateAgentOptions, 'modelFor' | 'checkpointer'>;
}

async function setup({ files = {}, agents, script, options = {}, init = {} }: Setup) {
  const fx = await skillsFixture(files);
  const model = createScriptedModel(script);
  const agent = createAgent({
    ...init,
    model,
    registry: withAgents(fx.registry, agents),
    policy: fx.policy,
    options: { cwd: fx.dir.path, ...options },
  });
  cleanups.push(async () => {
    await agent.close();
    await fx.dir.cleanup();
  });
  return { fx, model, agent };
}

const systemOf = (model: { calls: Array<{ messages: Array<{ content: unknown }> }> }, i: number) =>
  textOf(model.calls[i]?.messages[0]);

const skills = {
  'notes/SKILL.md': knowledgeSkill('notes', 'Write everything down.', 'always_inject: true\n'),
  'greet/SKILL.md': toolSkill('greet', [
    { name: 'hello', entrypoint: 'bash:echo hello {name}', schema: stringArg('name') },
  ]),
};

describe('agents: who answers a turn', () => {
  it("puts the agent's body after the instructions and before the skill tiers, and nothing else changes", async () => {
    const { agent, model } = await setup({
      files: skills,
      agents: [agentSpec('reviewer', { body: REVIEWER })],
      script: [{ text: 'checked' }, { text: 'plain' }],
    });
    const events = await collect(agent.stream('review this', { threadId: 't1', agent: 'reviewer' }));
    await collect(agent.stream('and you?', { threadId: 't2' }));
    const withAgent = systemOf(model, 0);
    const without = systemOf(model, 1);
    expect(withAgent).toContain(REVIEWER);
    expect(withAgent.indexOf(REVIEWER)).toBeLessThan(withAgent.indexOf('# Skills'));
    expect(withAgent.indexOf('You are birdie')).toBeLessThan(withAgent.indexOf(REVIEWER));
    // The default agent's prompt is the same prompt without the body: no agent, no change.
    expect(without).not.toContain(REVIEWER);
    expect(withAgent.replace(`${REVIEWER}\n\n`, '')).toBe(without);
    // Every event of the named agent says who it comes from; the default agent's say nothing.
    expect(events.map((e) => e.agent)).toEqual(events.map(() => ['reviewer']));
    expect(ofType(events, 'done')).toEqual([{ type: 'done', status: 'ok', agent: ['reviewer'] }]);
    expect((await agent.getState('t1')).agent).toBe('reviewer');
    expect((await agent.getState('t2')).agent).toBeUndefined();
  });

  it('keeps the agent for the next turns until the application names another, or null for the default', async () => {
    const { agent, model } = await setup({
      agents: [agentSpec('reviewer', { body: REVIEWER })],
      script: [{ text: 'one' }, { text: 'two' }, { text: 'three' }],
    });
    await collect(agent.stream('first', { threadId: 't1', agent: 'reviewer' }));
    const second = await collect(agent.stream('second', { threadId: 't1' }));
    await collect(agent.stream('third', { threadId: 't1', agent: null }));
    expect(systemOf(model, 1)).toContain(REVIEWER);
    expect(ofType(second, 'done')[0]?.agent).toEqual(['reviewer']);
    expect(systemOf(model, 2)).not.toContain(REVIEWER);
    expect((await agent.getState('t1')).agent).toBeUndefined();
  });

  it('refuses an agent that does not exist, and a thread whose agent was removed, without falling back', async () => {
    const agents = [agentSpec('reviewer')];
    const { agent } = await setup({ agents, script: [{ text: 'ok' }] });
    expect(() => agent.stream('x', { threadId: 't1', agent: 'nobody' })).toThrow(
      expect.objectContaining({ code: 'unknown-agent' }),
    );
    await collect(agent.stream('x', { threadId: 't1', agent: 'reviewer' }));
    agents.pop();
    const events = await collect(agent.stream('y', { threadId: 't1' }));
    expect(ofType(events, 'error')[0]?.error.code).toBe('unknown-agent');
    expect(ofType(events, 'done')[0]?.status).toBe('error');
  });

  it('runs the agent on its own model from modelFor, resolved once per spec string; others keep the default', async () => {
    const fast = createScriptedModel([{ text: 'fast one' }, { text: 'fast two' }]);
    const asked: string[] = [];
    const { agent, model } = await setup({
      agents: [
        agentSpec('quick', { model: 'openai:gpt-fast' }),
        agentSpec('brisk', { model: 'openai:gpt-fast' }),
        agentSpec('plain'),
      ],
      script: [{ text: 'default model' }],
      init: {
        modelFor: async (spec) => {
          asked.push(spec);
          return fast as unknown as BaseChatModel;
        },
      },
    });
    const a = await agent.invoke('hi', { threadId: 't1', agent: 'quick' });
    const b = await agent.invoke('hi', { threadId: 't2', agent: 'brisk' });
    const c = await agent.invoke('hi', { threadId: 't3', agent: 'plain' });
    expect([a.text, b.text, c.text]).toEqual(['fast one', 'fast two', 'default model']);
    expect(asked).toEqual(['openai:gpt-fast']);
    expect(fast.calls).toHaveLength(2);
    expect(model.calls).toHaveLength(1);
  });

  it("hands an agent's temperature and max_retries to modelFor with its model, or with the default tier", async () => {
    const tuned = createScriptedModel([{ text: 'tuned own' }, { text: 'tuned default' }]);
    const asked: Array<[string, unknown]> = [];
    const { agent, model } = await setup({
      agents: [
        agentSpec('careful', { model: 'openai:gpt-x', temperature: 0.1, maxRetries: 5 }),
        agentSpec('warm', { temperature: 1.2 }),
        agentSpec('plain'),
      ],
      script: [{ text: 'default model' }],
      init: {
        modelFor: async (spec, tuning) => {
          asked.push([spec, tuning]);
          return tuned as unknown as BaseChatModel;
        },
      },
    });
    const a = await agent.invoke('hi', { threadId: 't1', agent: 'careful' });
    const b = await agent.invoke('hi', { threadId: 't2', agent: 'warm' });
    const c = await agent.invoke('hi', { threadId: 't3', agent: 'plain' });
    expect([a.text, b.text, c.text]).toEqual(['tuned own', 'tuned default', 'default model']);
    expect(asked).toEqual([
      ['openai:gpt-x', { temperature: 0.1, maxRetries: 5 }],
      ['default', { temperature: 1.2 }],
    ]);
    expect(model.calls).toHaveLength(1);
  });

  it('reports a model that cannot be made as model-error, and asks modelFor again next time', async () => {
    let attempts = 0;
    const { agent } = await setup({
      agents: [agentSpec('quick', { model: 'nowhere:model' })],
      script: [],
      init: {
        modelFor: async () => {
          attempts += 1;
          throw new Error('no such vendor');
        },
      },
    });
    const events = await collect(agent.stream('hi', { threadId: 't1', agent: 'quick' }));
    expect(ofType(events, 'error')[0]?.error).toEqual({
      code: 'model-error',
      message: 'The model "nowhere:model" of agent quick is not available: no such vendor',
    });
    await collect(agent.stream('hi', { threadId: 't1' }));
    expect(attempts).toBe(2);
  });
});

describe('agents: tools', () => {
  const files = {
    'alpha/SKILL.md': toolSkill('alpha', [
      { name: 'a1', entrypoint: 'bash:echo a1' },
      { name: 'a2', entrypoint: 'bash:echo a2' },
    ]),
    'beta/SKILL.md': toolSkill('beta', [{ name: 'b1', entrypoint: 'bash:echo b1' }]),
    'gamma/SKILL.md': toolSkill('gamma', [{ name: 'g1', entrypoint: 'bash:echo g1' }]).replace(
      'enabled_by_default: true',
      'enabled_by_default: false',
    ),
  };

  it('gives an agent what the session allows ∩ its skills ∩ its tools, and refuses the rest when called', async () => {
    const { agent, model } = await setup({
      files,
      agents: [agentSpec('narrow', { skills: ['alpha', 'gamma'], tools: ['a1', 'g1', 'b1'] })],
      script: [
        {
          tool_calls: [
            { name: 'a1', id: 'k1' },
            { name: 'a2', id: 'k2' },
            { name: 'b1', id: 'k3' },
            { name: 'g1', id: 'k4' },
          ],
        },
        { text: 'done' },
      ],
    });
    expect((await agent.toolsFor('t1')).map((t) => t.name)).toEqual(['a1', 'a2', 'b1']);
    expect((await agent.toolsFor('t1', { agent: 'narrow' })).map((t) => t.name)).toEqual(['a1']);
    await collect(agent.stream('go', { threadId: 't1', agent: 'narrow' }));
    expect(model.calls[0]?.tools).toEqual(['a1']);
    const results = await toolMessages(agent, 't1');
    expect(results.map((m) => [m.tool_call_id, m.status])).toEqual([
      ['k1', 'success'],
      ['k2', 'error'],
      ['k3', 'error'],
      ['k4', 'error'],
    ]);
    expect(textOf(results[1])).toMatch(
      /^Error: tool "a2" is not available in this session.*Available tools: a1\.$/,
    );
    // The catalog lists the agent's skills only: gamma is not allowed in the session, beta not the agent's.
    expect(systemOf(model, 0)).toContain('- alpha [tool]');
    expect(systemOf(model, 0)).not.toMatch(/- (beta|gamma) \[tool\]/);
  });

  it("lifts approval: required for the agent's `approve` tools only; a raw command and mode always still ask", async () => {
    const ops = toolSkill('ops', [
      { name: 'deploy', entrypoint: 'bash:echo deployed', extra: 'approval: required\n' },
      { name: 'run', entrypoint: 'bash:{command}', schema: stringArg('command') },
    ]);
    const calls = {
      tool_calls: [
        { name: 'deploy', id: 'd1' },
        { name: 'run', id: 'r1', args: { command: 'echo hi' } },
      ],
    };
    const { agent } = await setup({
      files: { 'ops/SKILL.md': ops },
      agents: [agentSpec('operator', { approve: ['deploy', 'run'] })],
      script: [calls, calls, calls],
    });
    const reasons = async (threadId: string, options: { agent?: string; approval?: 'always' }) => {
      const events = await collect(agent.stream('go', { threadId, ...options }));
      return ofType(events, 'approval-request').flatMap((e) =>
        e.requests.map((r) => [r.tool, r.reason, r.agent]),
      );
    };
    expect(await reasons('t1', { agent: 'operator' })).toEqual([['run', 'raw-command', ['operator']]]);
    expect(await reasons('t2', {})).toEqual([
      ['deploy', 'approval-required', undefined],
      ['run', 'raw-command', undefined],
    ]);
    expect(await reasons('t3', { agent: 'operator', approval: 'always' })).toEqual([
      ['deploy', 'mode-always', ['operator']],
      ['run', 'mode-always', ['operator']],
    ]);
  });
});

describe('agents: limits', () => {
  it('stops an agent after max_turns model calls with max-turns, and the thread stays usable', async () => {
    const loop = { tool_calls: [{ name: 'hello', args: { name: 'again' } }] };
    const { agent } = await setup({
      files: skills,
      agents: [agentSpec('looper', { maxTurns: 2 })],
      script: [loop, { tool_calls: [{ name: 'hello', args: { name: 'more' } }] }, { text: 'recovered' }],
    });
    const events = await collect(agent.stream('go', { threadId: 't1', agent: 'looper' }));
    expect(ofType(events, 'error').map((e) => e.error)).toEqual([
      {
        code: 'max-turns',
        message: 'Agent looper stopped after 2 model turns without a final answer (its max_turns).',
      },
    ]);
    expect(ofType(events, 'done')[0]?.status).toBe('error');
    expect((await toolMessages(agent, 't1')).map(textOf)).toEqual(['hello again\n', 'hello more\n']);
    const next = await agent.invoke('once more', { threadId: 't1' });
    expect(next.text).toBe('recovered');
  });

  it('stops an agent at its timeout with agent-timeout, and its running tool process with it', async () => {
    const { agent, fx } = await setup({
      files: {
        'slow/SKILL.md': toolSkill('slow', [
          { name: 'wait', entrypoint: 'bash:echo $$ > {pidfile}; sleep 30', schema: stringArg('pidfile') },
        ]),
      },
      agents: [agentSpec('hasty', { timeout: 1 })],
      script: [{ tool_calls: [{ name: 'wait', args: { pidfile: 'slow.pid' } }] }],
    });
    const events = await collect(agent.stream('go', { threadId: 't1', agent: 'hasty' }));
    expect(ofType(events, 'error').map((e) => e.error)).toEqual([
      {
        code: 'agent-timeout',
        message: 'Agent hasty did not finish within 1 s (its timeout); its running tools were stopped.',
      },
    ]);
    expect(ofType(events, 'done')[0]).toEqual({ type: 'done', status: 'error', agent: ['hasty'] });
    const pid = await waitFor(readPid(join(fx.dir.path, 'slow.pid')));
    await waitFor(() => (alive(pid) ? undefined : true));
  });
});

describe('agents: invoke', () => {
  it('returns the final answer, the usage and the new messages; or the pending approvals', async () => {
    const { agent } = await setup({
      files: {
        'ops/SKILL.md': toolSkill('ops', [
          { name: 'deploy', entrypoint: 'bash:echo deployed', extra: 'approval: required\n' },
        ]),
      },
      agents: [agentSpec('operator')],
      script: [
        { text: 'Hello there.', usage: { input_tokens: 10, output_tokens: 3 } },
        { tool_calls: [{ name: 'deploy', id: 'd1' }], usage: { input_tokens: 20, output_tokens: 4 } },
      ],
    });
    const answer = await agent.invoke('hi', { threadId: 't1', agent: 'operator' });
    expect(answer).toMatchObject({
      status: 'ok',
      text: 'Hello there.',
      usage: { inputTokens: 10, outputTokens: 3 },
      pendingApprovals: [],
      agent: 'operator',
    });
    expect(answer.messages.map((m) => [m.getType(), m.text])).toEqual([['ai', 'Hello there.']]);
    const asked = await agent.invoke('deploy', { threadId: 't1' });
    expect(asked.status).toBe('interrupted');
    expect(asked.text).toBe('');
    expect(asked.pendingApprovals.map((r) => [r.id, r.tool, r.agent])).toEqual([
      ['d1', 'deploy', ['operator']],
    ]);
  });

  it('throws the failure of a run as AgentError with its code', async () => {
    const { agent } = await setup({
      agents: [],
      script: [{ error: { status: 400, message: 'bad request' } }],
    });
    await expect(agent.invoke('hi', { threadId: 't1' })).rejects.toMatchObject({
      name: 'AgentError',
      code: 'model-error',
    });
  });
});
