import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModel, type ScriptedReply } from '@birdie/providers';
import { SkillPolicy } from '@birdie/registry';
import { openStore, type Store } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import {
  type AgentOptions,
  type AgentSpec,
  childThreadId,
  createAgent,
  STARTED_TOOL_RESULT,
  type ToolJournal,
} from '../src/index.js';
import {
  agentSpec,
  alive,
  collect,
  ofType,
  readPid,
  type SkillsFixture,
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

const REVIEWER = 'You are the reviewer.';
const RESEARCHER = 'You are the researcher: find facts, cite them.';

const files = {
  'research/SKILL.md': toolSkill('research', [
    { name: 'lookup', entrypoint: 'bash:echo fact about {topic}', schema: stringArg('topic') },
    { name: 'wait', entrypoint: 'bash:echo $$ > {pidfile}; sleep 30', schema: stringArg('pidfile') },
    {
      name: 'wait_for',
      entrypoint:
        'bash:for i in $(seq 1 200); do [ -f {flag} ] && echo seen && exit 0; sleep 0.05; done; exit 1',
      schema: stringArg('flag'),
    },
    { name: 'make', entrypoint: 'bash:sleep 0.3; touch {flag}', schema: stringArg('flag') },
  ]),
  'writing/SKILL.md': toolSkill('writing', [{ name: 'draft', entrypoint: 'bash:echo draft' }]),
  'ops/SKILL.md': toolSkill(
    'ops',
    [
      {
        name: 'deploy',
        entrypoint: 'bash:echo run >> {file}',
        schema: stringArg('file'),
        extra: 'approval: required\n',
      },
    ],
    // Not allowed unless the session enables it.
  ).replace('enabled_by_default: true', 'enabled_by_default: false'),
};

const team = (extra: Partial<Record<string, Partial<AgentSpec>>> = {}) => [
  agentSpec('reviewer', {
    body: REVIEWER,
    skills: ['writing'],
    subagents: ['researcher'],
    ...extra.reviewer,
  }),
  agentSpec('researcher', { body: RESEARCHER, skills: ['research', 'ops'], ...extra.researcher }),
];

function recordingJournal() {
  const started: string[] = [];
  const finished: string[] = [];
  const journal: ToolJournal = {
    started: (call) => {
      started.push(call.id);
    },
    finished: (call) => {
      finished.push(call.id);
    },
    startedAmong: (ids) => new Set(ids.filter((id) => started.includes(id))),
  };
  return { journal, started, finished };
}

async function setup(
  script: ScriptedReply[],
  agents: AgentSpec[] = team(),
  options: AgentOptions = {},
  fixture?: SkillsFixture,
  store?: Store,
) {
  const fx = fixture ?? (await skillsFixture(files));
  const model = createScriptedModel(script);
  const agent = createAgent({
    model,
    registry: withAgents(fx.registry, agents),
    policy: fx.policy,
    options: { cwd: fx.dir.path, ...options },
    ...(store ? { checkpointer: store.checkpointer } : {}),
  });
  cleanups.push(async () => {
    await agent.close();
    if (!fixture) await fx.dir.cleanup();
  });
  return { fx, model, agent };
}

const task = (id: string, agent: string, prompt: string) => ({ name: 'task', id, args: { agent, prompt } });

/** The model call that answered `human` (the first message after the system prompt). */
const callFor = (
  model: { calls: Array<{ messages: Array<{ content: unknown }>; tools: string[] }> },
  human: string,
) => model.calls.find((c) => textOf(c.messages[1]) === human);

describe('subagents: task', () => {
  it('runs the subagent on its own thread with its own prompt and the intersection of tools, events nested', async () => {
    const { agent, model } = await setup([
      { match: '^review', tool_calls: [task('t1', 'researcher', 'find facts about owls')] },
      { match: '^find facts', tool_calls: [{ name: 'lookup', id: 'l1', args: { topic: 'owls' } }] },
      { match: '^find facts', text: 'Owls hunt at night.' },
      { match: '^review', text: 'Reviewed: owls hunt at night.' },
    ]);
    const { journal, started, finished } = recordingJournal();
    const events = await collect(
      agent.stream('review the draft', { threadId: 's1', agent: 'reviewer', journal }),
    );

    const parent = callFor(model, 'review the draft');
    const child = callFor(model, 'find facts about owls');
    // The parent gets task (first) and its own skill's tool; the child its skills ∩ the session (ops is disabled).
    expect(parent?.tools).toEqual(['task', 'draft']);
    expect(child?.tools).toEqual(['lookup', 'wait', 'wait_for', 'make']);
    expect(textOf(parent?.messages[0])).toContain(REVIEWER);
    expect(textOf(child?.messages[0])).toContain(RESEARCHER);
    expect(textOf(child?.messages[0])).not.toContain(REVIEWER);
    expect(child?.messages).toHaveLength(2);

    const inner = ['reviewer', 'researcher'];
    const tools = events.filter((e) => e.type === 'tool-start' || e.type === 'tool-end');
    expect(tools.map((e) => [e.type, (e as { name: string }).name, e.agent])).toEqual([
      ['tool-start', 'task', ['reviewer']],
      ['tool-start', 'lookup', inner],
      ['tool-end', 'lookup', inner],
      ['tool-end', 'task', ['reviewer']],
    ]);
    expect(ofType(events, 'tool-end').at(-1)).toMatchObject({ ok: true, output: 'Owls hunt at night.' });
    const nestedTokens = ofType(events, 'token').filter((e) => e.agent?.length === 2);
    expect(nestedTokens.map((e) => e.text).join('')).toBe('Owls hunt at night.');
    expect(ofType(events, 'usage').filter((e) => e.agent?.length === 2)).toHaveLength(2);
    expect(ofType(events, 'done')).toEqual([{ type: 'done', status: 'ok', agent: ['reviewer'] }]);

    const [result] = await toolMessages(agent, 's1');
    expect([result?.tool_call_id, result?.status, textOf(result)]).toEqual([
      't1',
      'success',
      'Owls hunt at night.',
    ]);
    const childThread = childThreadId('s1', 't1');
    const childState = await agent.getState(childThread);
    expect(childState.agent).toBe('researcher');
    expect(childState.messages.map((m) => m.getType())).toEqual(['human', 'ai', 'tool', 'ai']);
    // One journal: the subagent's calls under its thread, so ids never collide with the parent's.
    expect(started).toEqual(['t1', `${childThread}/l1`]);
    expect(finished).toEqual([`${childThread}/l1`, 't1']);
  });

  it('asks for a subagent call through the parent, and the parent answers it after a restart', async () => {
    const fx = await skillsFixture(files);
    cleanups.push(() => fx.dir.cleanup());
    const db = join(fx.dir.path, 'birdie.db');
    const log = join(fx.dir.path, 'deploy.log');
    fx.policy.enable('s1', 'ops');
    const first = openStore({ file: db });
    const before = await setup(
      [
        { match: '^review', tool_calls: [task('t1', 'researcher', 'deploy the site')] },
        { match: '^deploy', tool_calls: [{ name: 'deploy', id: 'x1', args: { file: log } }] },
      ],
      team(),
      {},
      fx,
      first,
    );
    const events = await collect(
      before.agent.stream('review and ship', { threadId: 's1', agent: 'reviewer' }),
    );
    const expected = {
      id: 't1/x1',
      tool: 'deploy',
      skill: 'ops',
      reason: 'approval-required',
      agent: ['reviewer', 'researcher'],
      args: { file: log },
    };
    expect(ofType(events, 'approval-request')).toEqual([
      { type: 'approval-request', requests: [expect.objectContaining(expected)], agent: ['reviewer'] },
    ]);
    expect(ofType(events, 'done').map((e) => e.status)).toEqual(['interrupted']);
    expect(ofType(events, 'tool-end')).toEqual([]);
    await before.agent.close();
    first.close();

    // A new process: a new store on the same file, a new agent, a new model.
    const second = openStore({ file: db });
    cleanups.push(() => second.close());
    const after = await setup(
      [
        { match: '^deploy', text: 'Deployed.' },
        { match: '^review', text: 'Shipped.' },
      ],
      team(),
      {},
      fx,
      second,
    );
    const { pendingApprovals } = await after.agent.getState('s1');
    expect(pendingApprovals).toEqual([expect.objectContaining(expected)]);
    // The child's own id answers nothing: decisions are keyed by the id the parent showed.
    await expect(collect(after.agent.resume('s1', { x1: { type: 'approve' } }))).rejects.toMatchObject({
      code: 'missing-decision',
    });
    const resumed = await collect(after.agent.resume('s1', { 't1/x1': { type: 'approve' } }));
    expect(readFileSync(log, 'utf8')).toBe('run\n');
    expect(
      resumed.filter((e) => e.type === 'tool-end').map((e) => [(e as { name: string }).name, e.agent]),
    ).toEqual([
      ['deploy', ['reviewer', 'researcher']],
      ['task', ['reviewer']],
    ]);
    expect(ofType(resumed, 'done')).toEqual([{ type: 'done', status: 'ok', agent: ['reviewer'] }]);
    const messages = (await after.agent.getState('s1')).messages;
    expect(messages.map((m) => [m.getType(), m.text])).toEqual([
      ['human', 'review and ship'],
      ['ai', ''],
      ['tool', 'Deployed.'],
      ['ai', 'Shipped.'],
    ]);
    expect((await after.agent.getState('s1')).pendingApprovals).toEqual([]);
  });

  it('asks for two subagents at once, and again for one that asks a second time; each call runs once', async () => {
    const { agent, fx } = await setup([
      {
        match: '^review',
        tool_calls: [task('t1', 'researcher', 'deploy a'), task('t2', 'researcher', 'deploy b')],
      },
      { match: '^deploy a', tool_calls: [{ name: 'deploy', id: 'x1', args: { file: 'a.log' } }] },
      { match: '^deploy b', tool_calls: [{ name: 'deploy', id: 'y1', args: { file: 'b.log' } }] },
      { match: '^deploy a', tool_calls: [{ name: 'deploy', id: 'x2', args: { file: 'a.log' } }] },
      { match: '^deploy b', text: 'b done' },
      { match: '^deploy a', text: 'a done' },
      { match: '^review', text: 'all done' },
    ]);
    fx.policy.enable('s1', 'ops');
    const asked = await collect(agent.stream('review', { threadId: 's1', agent: 'reviewer' }));
    expect(ofType(asked, 'approval-request').flatMap((e) => e.requests.map((r) => r.id))).toEqual([
      't1/x1',
      't2/y1',
    ]);
    const again = await collect(
      agent.resume('s1', { 't1/x1': { type: 'approve' }, 't2/y1': { type: 'approve' } }),
    );
    expect(ofType(again, 'approval-request').flatMap((e) => e.requests.map((r) => r.id))).toEqual(['t1/x2']);
    expect(ofType(again, 'done').map((e) => e.status)).toEqual(['interrupted']);
    expect((await agent.getState('s1')).pendingApprovals.map((r) => r.id)).toEqual(['t1/x2']);
    const last = await collect(agent.resume('s1', { 't1/x2': { type: 'approve' } }));
    expect(ofType(last, 'done').map((e) => e.status)).toEqual(['ok']);
    expect(readFileSync(join(fx.dir.path, 'a.log'), 'utf8')).toBe('run\nrun\n');
    expect(readFileSync(join(fx.dir.path, 'b.log'), 'utf8')).toBe('run\n');
    expect((await toolMessages(agent, 's1')).map((m) => [m.tool_call_id, textOf(m)])).toEqual([
      ['t1', 'a done'],
      ['t2', 'b done'],
    ]);
    expect(
      ofType(last, 'tool-end')
        .filter((e) => e.name === 'task')
        .map((e) => e.id),
    ).toEqual(['t1', 't2']);
  });

  it('abandons a waiting subagent when the user sends a message instead of deciding', async () => {
    const { agent, fx } = await setup([
      { match: '^review', tool_calls: [task('t1', 'researcher', 'deploy it')] },
      { match: '^deploy', tool_calls: [{ name: 'deploy', id: 'x1', args: { file: 'never.log' } }] },
      { match: '^never mind', text: 'Dropped.' },
    ]);
    fx.policy.enable('s1', 'ops');
    const { journal } = recordingJournal();
    await collect(agent.stream('review', { threadId: 's1', agent: 'reviewer', journal }));
    const events = await collect(agent.stream('never mind', { threadId: 's1', journal }));
    expect(ofType(events, 'done').map((e) => e.status)).toEqual(['ok']);
    expect((await agent.getState('s1')).pendingApprovals).toEqual([]);
    const [placeholder] = await toolMessages(agent, 's1');
    // The task started (its subagent may have done things), so the model is told to check.
    expect([placeholder?.tool_call_id, placeholder?.status, textOf(placeholder)]).toEqual([
      't1',
      'error',
      STARTED_TOOL_RESULT,
    ]);
  });

  it('passes a rejection down to the subagent, which goes on without the call', async () => {
    const { agent, fx } = await setup([
      { match: '^review', tool_calls: [task('t1', 'researcher', 'deploy it')] },
      { match: '^deploy', tool_calls: [{ name: 'deploy', id: 'x1', args: { file: 'never.log' } }] },
      { match: '^deploy', text: 'The user said no.' },
      { match: '^review', text: 'Not shipped.' },
    ]);
    fx.policy.enable('s1', 'ops');
    await collect(agent.stream('review', { threadId: 's1', agent: 'reviewer' }));
    const resumed = await collect(agent.resume('s1', { 't1/x1': { type: 'reject', message: 'not today' } }));
    expect(ofType(resumed, 'done')[0]?.status).toBe('ok');
    const child = await agent.getState(childThreadId('s1', 't1'));
    expect(textOf(child.messages[2])).toBe(
      'The user rejected this call; it did not run. Their message: not today',
    );
    expect(textOf((await toolMessages(agent, 's1'))[0])).toBe('The user said no.');
  });

  it('cancels a running subagent with the turn, its processes included, and answers the call as cancelled', async () => {
    const { agent, fx } = await setup([
      { match: '^review', tool_calls: [task('t1', 'researcher', 'wait a while')] },
      { match: '^wait', tool_calls: [{ name: 'wait', id: 'w1', args: { pidfile: 'sub.pid' } }] },
      { match: '^again', text: 'Fine.' },
    ]);
    const controller = new AbortController();
    const run = collect(
      agent.stream('review', { threadId: 's1', agent: 'reviewer', signal: controller.signal }),
    );
    const pid = await waitFor(readPid(join(fx.dir.path, 'sub.pid')));
    expect(alive(pid)).toBe(true);
    controller.abort();
    const events = await run;
    expect(ofType(events, 'done').map((e) => e.status)).toEqual(['aborted']);
    await waitFor(() => (alive(pid) ? undefined : true));
    await collect(agent.stream('again', { threadId: 's1' }));
    const [repaired] = await toolMessages(agent, 's1');
    expect([repaired?.tool_call_id, repaired?.status]).toEqual(['t1', 'error']);
    expect(textOf(repaired)).toMatch(/^\[Cancelled by the user while it ran/);
  });

  it('agent.close() stops a running subagent too: both runs end closed, both calls are answered as stopped by the close', async () => {
    const { agent, fx } = await setup([
      { match: '^review', tool_calls: [task('t1', 'researcher', 'wait a while')] },
      { match: '^wait', tool_calls: [{ name: 'wait', id: 'w1', args: { pidfile: 'sub.pid' } }] },
    ]);
    const run = collect(agent.stream('review', { threadId: 's1', agent: 'reviewer' }));
    const pid = await waitFor(readPid(join(fx.dir.path, 'sub.pid')));
    expect(alive(pid)).toBe(true);
    await agent.close();
    const events = await run;
    expect(ofType(events, 'done').map((e) => e.status)).toEqual(['error']);
    expect(ofType(events, 'error').map((e) => e.error.code)).toContain('closed');
    await waitFor(() => (alive(pid) ? undefined : true));
    const [parent] = await toolMessages(agent, 's1');
    expect([parent?.tool_call_id, parent?.status]).toEqual(['t1', 'error']);
    expect(textOf(parent)).toMatch(/^\[Stopped because birdie was closed while it ran/);
    const [child] = await toolMessages(agent, childThreadId('s1', 't1'));
    expect([child?.tool_call_id, child?.status]).toEqual(['w1', 'error']);
    expect(textOf(child)).toMatch(/^\[Stopped because birdie was closed while it ran/);
  });

  it('runs the subagents of one model turn side by side', async () => {
    // The waiter only finishes if the maker runs while it waits: impossible one subagent after the other.
    const { agent } = await setup([
      {
        match: '^review',
        tool_calls: [
          task('t1', 'researcher', 'wait for the flag'),
          task('t2', 'researcher', 'make the flag'),
        ],
      },
      { match: '^wait for', tool_calls: [{ name: 'wait_for', id: 'a1', args: { flag: 'flag' } }] },
      { match: '^make', tool_calls: [{ name: 'make', id: 'b1', args: { flag: 'flag' } }] },
      { match: '^wait for', text: 'I saw it.' },
      { match: '^make', text: 'I made it.' },
      { match: '^review', text: 'Both done.' },
    ]);
    const events = await collect(agent.stream('review', { threadId: 's1', agent: 'reviewer' }));
    expect(ofType(events, 'done')[0]?.status).toBe('ok');
    expect((await toolMessages(agent, 's1')).map((m) => [m.tool_call_id, m.status, textOf(m)])).toEqual([
      ['t1', 'success', 'I saw it.'],
      ['t2', 'success', 'I made it.'],
    ]);
    const waiter = await agent.getState(childThreadId('s1', 't1'));
    expect(textOf(waiter.messages[2])).toBe('seen\n');
  });

  it('refuses a subagent deeper than the limit (default 3) with subagent-depth, and the agent goes on', async () => {
    const fractal = agentSpec('fractal', { subagents: ['fractal'], skills: [] });
    const { agent, model } = await setup(
      [
        { match: '^start', tool_calls: [task('k1', 'fractal', 'level 1')] },
        { match: '^level 1$', tool_calls: [task('k2', 'fractal', 'level 2')] },
        { match: '^level 2$', tool_calls: [task('k3', 'fractal', 'level 3')] },
        { match: '^level 3$', tool_calls: [task('k4', 'fractal', 'level 4')] },
        { match: '^level 3$', text: 'bottom' },
        { match: '^level 2$', text: 'up 2' },
        { match: '^level 1$', text: 'up 1' },
        { match: '^start', text: 'top' },
      ],
      [fractal],
    );
    const events = await collect(agent.stream('start', { threadId: 's1', agent: 'fractal' }));
    expect(ofType(events, 'done')).toEqual([{ type: 'done', status: 'ok', agent: ['fractal'] }]);
    expect(callFor(model, 'level 4')).toBeUndefined();
    const level3 = childThreadId(childThreadId(childThreadId('s1', 'k1'), 'k2'), 'k3');
    const refused = (await toolMessages(agent, level3))[0];
    expect([refused?.status, textOf(refused)]).toEqual([
      'error',
      'Error (subagent-depth): Refused: subagents nest at most 3 levels deep, and fractal › fractal › fractal › fractal › fractal would be level 4. Do this part yourself.',
    ]);
    const deepest = ofType(events, 'tool-end').find((e) => e.id === 'k4');
    expect(deepest?.agent).toEqual(['fractal', 'fractal', 'fractal', 'fractal']);
    expect(textOf((await toolMessages(agent, 's1'))[0])).toBe('up 1');
  });

  it('offers no task for a subagent the policy does not allow (an operator allow list)', async () => {
    const fx = await skillsFixture(files);
    cleanups.push(() => fx.dir.cleanup());
    const ceiling = { agent: (name: string) => name !== 'researcher' };
    const { agent } = await setup(
      [],
      team(),
      {},
      { ...fx, policy: new SkillPolicy(fx.registry, { ceiling }) },
    );
    const names = (await agent.toolsFor('t1', { agent: 'reviewer' })).map((t) => t.name);
    expect(names).toContain('draft');
    expect(names).not.toContain('task');
    const open = await setup([], team());
    expect((await open.agent.toolsFor('t1', { agent: 'reviewer' })).map((t) => t.name)).toContain('task');
  });

  it('keeps thread ids of subagents valid however long the parent id is', () => {
    const long = `a${'b'.repeat(127)}`;
    const id = childThreadId(long, 'call_1');
    expect(id).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);
    expect(id).toHaveLength(128);
    expect(childThreadId(long, 'call_1')).toBe(id);
    expect(childThreadId(long, 'call_2')).not.toBe(id);
  });
});
