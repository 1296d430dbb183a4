import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createScriptedModel, type ScriptedReply } from '@birdie/providers';
import { describe, expect, it } from 'vitest';
import { type AgentSpec, createAgent } from '../src/index.js';
import {
  agentSpec,
  collect,
  ofType,
  skillsFixture,
  textOf,
  toolMessages,
  toolSkill,
  useCleanups,
  withAgents,
} from './helpers.js';

const cleanups = useCleanups();
const child = new URL('./fixtures/agent-child.mjs', import.meta.url).pathname;
// Child processes load LangGraph and SQLite from scratch; on a busy machine that alone can take seconds.
const SLOW = 60_000;

const TRIAGE = 'You are triage: find out what the customer needs and send them to the right desk.';
const BILLING = 'You are billing: refunds and invoices.';

const files = {
  'front/SKILL.md': toolSkill('front', [{ name: 'classify', entrypoint: 'bash:echo question' }]),
  'money/SKILL.md': toolSkill('money', [
    { name: 'refund', entrypoint: 'bash:echo refunded' },
    { name: 'invoice', entrypoint: 'bash:echo invoiced', extra: 'approval: required\n' },
  ]),
};

const agents: AgentSpec[] = [
  agentSpec('triage', { body: TRIAGE, skills: ['front'], handoffs: ['billing'] }),
  agentSpec('billing', { body: BILLING, skills: ['money'], handoffs: ['triage'] }),
];

async function setup(script: ScriptedReply[]) {
  const fx = await skillsFixture(files);
  const model = createScriptedModel(script);
  const agent = createAgent({
    model,
    registry: withAgents(fx.registry, agents),
    policy: fx.policy,
    options: { cwd: fx.dir.path },
  });
  cleanups.push(async () => {
    await agent.close();
    await fx.dir.cleanup();
  });
  return { fx, model, agent };
}

const handoff = (to: string, message?: string, id = 'h1') => ({
  name: 'handoff',
  id,
  args: { to, ...(message ? { message } : {}) },
});
const systemOf = (model: { calls: Array<{ messages: Array<{ content: unknown }> }> }, i: number) =>
  textOf(model.calls[i]?.messages[0]);

describe('handoffs', () => {
  it('moves the conversation to the target: its prompt and tools from the next model call, over the same history', async () => {
    const { agent, model } = await setup([
      { tool_calls: [handoff('billing', 'Customer wants a refund for order 7')] },
      { text: 'Refund issued.' },
      { text: 'Anything else?' },
      { text: 'Triage again.' },
    ]);
    const events = await collect(agent.stream('I want my money back', { threadId: 's1', agent: 'triage' }));
    expect(systemOf(model, 0)).toContain(TRIAGE);
    expect(model.calls[0]?.tools).toEqual(['handoff', 'classify']);
    expect(systemOf(model, 1)).toContain(BILLING);
    expect(systemOf(model, 1)).not.toContain(TRIAGE);
    expect(model.calls[1]?.tools).toEqual(['handoff', 'refund', 'invoice']);
    // The whole history goes with it, the handoff's message included.
    expect(model.calls[1]?.messages.slice(1).map((m) => textOf(m))).toEqual([
      'I want my money back',
      '',
      'Handed the conversation to billing.\nMessage for billing: Customer wants a refund for order 7',
    ]);
    expect(ofType(events, 'tool-end').map((e) => [e.name, e.agent])).toEqual([['handoff', ['triage']]]);
    expect(ofType(events, 'message').map((e) => [e.message.getType(), e.agent])).toEqual([
      ['ai', ['triage']],
      ['tool', ['triage']],
      ['ai', ['billing']],
    ]);
    expect(ofType(events, 'done')).toEqual([{ type: 'done', status: 'ok', agent: ['billing'] }]);
    expect((await agent.getState('s1')).agent).toBe('billing');
    // The newest checkpoint alone says the same, without the history.
    expect(await agent.currentAgent('s1')).toBe('billing');

    const next = await agent.invoke('thanks', { threadId: 's1' });
    expect(next).toMatchObject({ text: 'Anything else?', agent: 'billing' });
    expect(systemOf(model, 2)).toContain(BILLING);
    await agent.invoke('back to the start', { threadId: 's1', agent: 'triage' });
    expect(systemOf(model, 3)).toContain(TRIAGE);
    expect(await agent.currentAgent('s1')).toBe('triage');
    expect((await agent.getState('s1')).agent).toBe('triage');
  });

  it('says no agent for a thread that never named one, or does not exist', async () => {
    const { agent } = await setup([{ text: 'Default agent here.' }]);
    expect(await agent.currentAgent('nobody')).toBeUndefined();
    await agent.invoke('hello', { threadId: 's2' });
    expect(await agent.currentAgent('s2')).toBeUndefined();
    expect((await agent.getState('s2')).agent).toBeUndefined();
    await expect(agent.currentAgent('bad/id')).rejects.toThrow(/thread/i);
  });

  it('takes one handoff per step and refuses a second one', async () => {
    const { agent } = await setup([
      { tool_calls: [handoff('billing', undefined, 'h1'), handoff('billing', 'twice', 'h2')] },
      { text: 'Billing here.' },
    ]);
    await collect(agent.stream('hi', { threadId: 's1', agent: 'triage' }));
    expect((await toolMessages(agent, 's1')).map((m) => [m.tool_call_id, m.status, textOf(m)])).toEqual([
      ['h1', 'success', 'Handed the conversation to billing.'],
      ['h2', 'error', 'Refused: this step already hands the conversation to billing; one handoff per step.'],
    ]);
    expect((await agent.getState('s1')).agent).toBe('billing');
  });

  it('lets a resume name the next agent: the pending calls run as the agent that asked, then the named one goes on', async () => {
    const { agent, model } = await setup([
      { tool_calls: [{ name: 'invoice', id: 'i1' }] },
      { text: 'Triage takes over.' },
    ]);
    const asked = await collect(agent.stream('invoice me', { threadId: 's1', agent: 'billing' }));
    expect(ofType(asked, 'approval-request')[0]?.requests[0]?.agent).toEqual(['billing']);
    // Waiting for the approval, the thread is billing's.
    expect(await agent.currentAgent('s1')).toBe('billing');
    expect((await agent.getState('s1')).agent).toBe('billing');
    const resumed = await collect(agent.resume('s1', { i1: { type: 'approve' } }, { agent: 'triage' }));
    expect(ofType(resumed, 'tool-end').map((e) => [e.name, e.ok, e.agent])).toEqual([
      ['invoice', true, ['billing']],
    ]);
    expect(systemOf(model, 1)).toContain(TRIAGE);
    expect((await agent.getState('s1')).agent).toBe('triage');
    expect(await agent.currentAgent('s1')).toBe('triage');
  });
});

/** Runs the agent fixture in a process of its own; resolves with its JSON lines once it has ended. */
function runChild(args: string[]): Promise<Array<Record<string, unknown>>> {
  const proc = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => {
    out += d;
  });
  proc.stderr.on('data', (d) => {
    err += d;
  });
  cleanups.push(() => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  });
  return new Promise((resolve, reject) =>
    proc.on('exit', (code) =>
      code === 0
        ? resolve(
            out
              .trim()
              .split('\n')
              .map((line) => JSON.parse(line)),
          )
        : reject(new Error(`child exited ${code}: ${err}`)),
    ),
  );
}

describe('handoffs across a process restart', () => {
  it(
    'a new process goes on with the agent the last one handed to, unless the application names another',
    async () => {
      const fx = await skillsFixture(files);
      cleanups.push(() => fx.dir.cleanup());
      const db = join(fx.dir.path, 'birdie.db');
      const run = (script: ScriptedReply[], turn: Record<string, unknown>) =>
        runChild([
          db,
          fx.dir.path,
          's1',
          JSON.stringify(agents),
          JSON.stringify(script),
          JSON.stringify(turn),
        ]);

      const first = await run(
        [{ tool_calls: [handoff('billing', 'refund order 7')] }, { text: 'Refund issued.' }],
        {
          input: 'I want my money back',
          agent: 'triage',
        },
      );
      expect(first.filter((l) => l.event === 'done')).toEqual([
        { event: 'done', agent: ['billing'], status: 'ok' },
      ]);
      expect(first.at(-1)).toEqual({ state: { agent: 'billing', loadedSkills: [] } });

      const second = await run([{ text: 'Welcome back.' }], { input: 'hello again' });
      const [call] = second.filter((l) => 'system' in l);
      expect(String(call?.system)).toContain(BILLING);
      expect(String(call?.system)).not.toContain(TRIAGE);
      expect(call?.tools).toEqual(['handoff', 'refund', 'invoice']);
      expect(second.filter((l) => l.event === 'message').map((l) => l.agent)).toEqual([['billing']]);

      const third = await run([{ text: 'Triage here.' }], { input: 'start over', agent: 'triage' });
      expect(String(third.find((l) => 'system' in l)?.system)).toContain(TRIAGE);
      expect(third.at(-1)).toEqual({ state: { agent: 'triage', loadedSkills: [] } });
    },
    SLOW,
  );
});
