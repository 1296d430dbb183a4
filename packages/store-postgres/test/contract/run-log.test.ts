import { hostname } from 'node:os';
import { type Child, spawnModule } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, useBackend } from './harness.js';

const DIGEST = 'b'.repeat(64);

// The complete run log, on every back end: what a run records, how it is found, and runs whose process died.
describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);
  let sessionId: string;
  const children: Child[] = [];
  beforeEach(async () => {
    sessionId = (await t.store.sessions.create('alice')).id;
  });
  afterEach(async () => {
    for (const c of children.splice(0)) {
      c.child.kill('SIGKILL');
      await c.exited;
    }
  });

  it('keeps what MCP servers said during a run, at their level, oldest first (the newest 200 of a chatty one)', async () => {
    const lease = await t.store.leases.acquire(sessionId);
    const run = await t.store.runs.start({ sessionId, userId: 'alice' });
    const at = new Date(1_800_000_000_000);
    const notices = [
      { at, server: 'everything', level: 'warning', kind: 'log', text: 'Warning-level message' },
      {
        at,
        server: 'everything',
        level: 'info',
        kind: 'resource-updated',
        text: 'demo://resource/1 changed',
      },
    ];
    await t.store.runs.finish(run, { status: 'ok', notices });
    expect((await t.store.runs.get(run, 'alice'))?.notices).toEqual(notices);
    const chatty = await t.store.runs.start({ sessionId, userId: 'alice' });
    const many = Array.from({ length: 250 }, (_, i) => ({ ...notices[0]!, text: `line ${i}` }));
    await t.store.runs.finish(chatty, { status: 'ok', notices: many });
    const kept = (await t.store.runs.get(chatty, 'alice'))?.notices ?? [];
    expect(kept).toHaveLength(200);
    expect(kept[0]?.text).toBe('line 50');
    expect((await t.store.runs.list({ userId: 'alice', limit: 1 }))[0]?.notices).toHaveLength(200);
    await lease.release();
  });

  it('records parent, user, thread and checkpoints, trigger, tokens per model, answer, and the process', async () => {
    const lease = await t.store.leases.acquire(sessionId);
    const parent = await t.store.runs.start({
      sessionId,
      userId: 'alice',
      model: 'openai/gpt-4o-mini',
      agent: { name: 'digest', digest: DIGEST },
      trigger: 'schedule 0 9 * * *',
      startCheckpointId: 'cp-0',
    });
    const child = await t.store.runs.start({
      sessionId,
      userId: 'alice',
      parentRunId: parent,
      threadId: `${sessionId}:task:call_1`,
      agent: { name: 'researcher', digest: DIGEST },
    });
    await t.store.runs.finish(child, {
      status: 'ok',
      inputTokens: 10,
      outputTokens: 2,
      usage: [{ model: 'anthropic/claude', inputTokens: 10, outputTokens: 2 }],
      answer: 'facts',
    });
    await t.store.runs.finish(parent, {
      status: 'ok',
      inputTokens: 110,
      outputTokens: 22,
      usage: [
        { model: 'openai/gpt-4o-mini', inputTokens: 60, outputTokens: 10 },
        { model: 'anthropic/claude', inputTokens: 10, outputTokens: 2 },
        { model: 'openai/gpt-4o-mini', inputTokens: 40, outputTokens: 10 },
      ],
      answer: 'The digest: sk-proj-abcdefghijklmnopqrstuvwx is not a key to keep',
      endCheckpointId: 'cp-9',
    });
    await lease.release();

    const run = await t.store.runs.get(parent, 'alice');
    expect(run).toMatchObject({
      id: parent,
      userId: 'alice',
      sessionId,
      threadId: sessionId,
      startCheckpointId: 'cp-0',
      endCheckpointId: 'cp-9',
      model: 'openai/gpt-4o-mini',
      agent: { name: 'digest', digest: DIGEST },
      trigger: 'schedule 0 9 * * *',
      status: 'ok',
      inputTokens: 110,
      outputTokens: 22,
      usage: [
        { model: 'openai/gpt-4o-mini', inputTokens: 100, outputTokens: 20 },
        { model: 'anthropic/claude', inputTokens: 10, outputTokens: 2 },
      ],
      host: hostname(),
      pid: process.pid,
      toolCalls: [],
    });
    expect(run!.parentRunId).toBeUndefined();
    // Secrets never reach the log, the answer included.
    expect(run!.answer).toBe('The digest: [redacted] is not a key to keep');
    expect(run!.durationMs).toBe(run!.endedAt!.getTime() - run!.startedAt.getTime());
    expect(await t.store.runs.get(child, 'alice')).toMatchObject({
      parentRunId: parent,
      threadId: `${sessionId}:task:call_1`,
      answer: 'facts',
    });
    expect(await t.store.runs.get(999_999, 'alice')).toBeUndefined();
    expect(await codeOf(() => t.store.runs.get(parent, 'bob'))).toBe('not-owner');
  });

  it("keeps a running run's tokens and latest model as it goes; its end replaces them, a later progress does not", async () => {
    const lease = await t.store.leases.acquire(sessionId);
    const run = await t.store.runs.start({ sessionId, userId: 'alice', model: 'fast' });
    await t.store.runs.progress(run, {
      inputTokens: 120,
      outputTokens: 7,
      usage: [{ model: 'openai/gpt-4o-mini', inputTokens: 120, outputTokens: 7 }],
      model: 'openai/gpt-4o-mini',
    });
    expect(await t.store.runs.get(run, 'alice')).toMatchObject({
      status: 'running',
      model: 'openai/gpt-4o-mini',
      inputTokens: 120,
      outputTokens: 7,
      usage: [{ model: 'openai/gpt-4o-mini', inputTokens: 120, outputTokens: 7 }],
    });
    await t.store.runs.finish(run, {
      status: 'ok',
      inputTokens: 130,
      outputTokens: 9,
      model: 'anthropic/claude',
    });
    await t.store.runs.progress(run, { inputTokens: 1, outputTokens: 1, usage: [] });
    expect(await t.store.runs.get(run, 'alice')).toMatchObject({
      status: 'ok',
      model: 'anthropic/claude',
      inputTokens: 130,
      outputTokens: 9,
    });
    expect(
      await codeOf(() => t.store.runs.progress(999_999, { inputTokens: 1, outputTokens: 1, usage: [] })),
    ).toBe('not-found');
    await lease.release();
  });

  it("ends a turn in one commit: the run's end, the session's totals and the lease's release, or none of them", async () => {
    const lease = await t.store.leases.acquire(sessionId);
    const run = await t.store.runs.start({ sessionId, userId: 'alice', model: 'fast' });
    const turn = { inputTokens: 40, outputTokens: 4 };
    // A finish that fails (no such run) records nothing of the three: the totals stay, the lease is still held.
    expect(
      await codeOf(() =>
        t.store.runs.finish(999_999, { status: 'ok', sessionTurn: turn, release: lease, usage: [] }),
      ),
    ).toBe('not-found');
    expect(await t.store.sessions.get(sessionId, 'alice')).toMatchObject({ turns: 0, inputTokens: 0 });
    expect(await t.store.leases.holder(sessionId)).toEqual(lease.holder);
    await lease.assertHeld();

    await t.store.runs.finish(run, {
      status: 'ok',
      inputTokens: 40,
      outputTokens: 4,
      sessionTurn: turn,
      release: lease,
    });
    expect(await t.store.runs.get(run, 'alice')).toMatchObject({ status: 'ok', inputTokens: 40 });
    expect(await t.store.sessions.get(sessionId, 'alice')).toMatchObject({
      turns: 1,
      inputTokens: 40,
      outputTokens: 4,
    });
    expect(await t.store.leases.holder(sessionId)).toBeUndefined();
    expect(await codeOf(() => lease.assertHeld())).toBe('lease-lost');
    // Another store (another process) takes the session at once; releasing again changes nothing.
    await lease.release();
    const other = await t.env.open();
    const next = await other.leases.acquire(sessionId);
    expect(next.previous).toBeUndefined();
    await next.release();

    // Only the lease of the run's own session, from this store, is released with it.
    const second = await t.store.runs.start({ sessionId, userId: 'alice' });
    const foreign = await other.leases.acquire(sessionId);
    expect(await codeOf(() => t.store.runs.finish(second, { status: 'ok', release: foreign }))).toBe(
      'invalid-argument',
    );
    expect(
      await codeOf(() =>
        t.store.runs.finish(second, { status: 'ok', sessionTurn: { inputTokens: -1, outputTokens: 0 } }),
      ),
    ).toBe('invalid-argument');
    expect((await t.store.runs.get(second, 'alice'))?.status).toBe('running');
    await foreign.release();
  });
  it('ends a run once: a second finish keeps the first end and totals, and still releases the lease it names', async () => {
    const lease = await t.store.leases.acquire(sessionId);
    const before = (await t.store.sessions.get(sessionId, 'alice'))!;
    const run = await t.store.runs.start({ sessionId, userId: 'alice', model: 'fast' });
    await t.store.runs.finish(run, {
      status: 'ok',
      inputTokens: 10,
      outputTokens: 5,
      answer: 'the real answer',
      sessionTurn: { inputTokens: 10, outputTokens: 5 },
    });
    // A late cancel path of the caller ends it again, with the session's lease.
    await t.store.runs.finish(run, {
      status: 'cancelled',
      sessionTurn: { inputTokens: 1, outputTokens: 1 },
      release: lease,
    });
    expect(await t.store.runs.get(run, 'alice')).toMatchObject({
      status: 'ok',
      answer: 'the real answer',
      inputTokens: 10,
      outputTokens: 5,
    });
    expect(await t.store.sessions.get(sessionId, 'alice')).toMatchObject({
      turns: before.turns + 1,
      inputTokens: before.inputTokens + 10,
      outputTokens: before.outputTokens + 5,
    });
    expect(await t.store.leases.holder(sessionId)).toBeUndefined();
    expect(await codeOf(() => t.store.runs.finish(999_999, { status: 'ok' }))).toBe('not-found');
  });

  it('lists by agent, status, start time, parent, and pages by id', async () => {
    const lease = await t.store.leases.acquire(sessionId);
    const ids: number[] = [];
    for (const [agent, status] of [
      ['digest', 'ok'],
      ['digest', 'cancelled'],
      ['triage', 'error'],
      [undefined, 'rejected'],
    ] as const) {
      const id = await t.store.runs.start({
        sessionId,
        userId: 'alice',
        ...(agent ? { agent: { name: agent, digest: DIGEST } } : {}),
      });
      await t.store.runs.finish(id, { status });
      ids.push(id);
    }
    const sub = await t.store.runs.start({ sessionId, userId: 'alice', parentRunId: ids[0]! });
    await lease.release();
    const list = async (q: object) => (await t.store.runs.list({ userId: 'alice', ...q })).map((r) => r.id);
    expect(await list({ agent: 'digest' })).toEqual([ids[1], ids[0]]);
    expect(await list({ status: 'cancelled' })).toEqual([ids[1]]);
    expect(await list({ status: 'running' })).toEqual([sub]);
    expect(await list({ parentRunId: null })).toEqual([...ids].reverse());
    expect(await list({ parentRunId: ids[0] })).toEqual([sub]);
    expect(await list({ afterId: ids[2] })).toEqual([sub, ids[3]]);
    expect(await list({ beforeId: ids[1], limit: 5 })).toEqual([ids[0]]);
    expect(await list({ since: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(await list({ since: new Date(Date.now() - 60_000), limit: 2 })).toEqual([sub, ids[3]]);
    expect((await t.store.runs.list({ userId: 'bob' })).length).toBe(0);
    expect(await codeOf(() => t.store.runs.list({ userId: 'alice', status: 'paused' as never }))).toBe(
      'invalid-argument',
    );
    expect(await codeOf(() => t.store.runs.finish(ids[0]!, { status: 'died' as never }))).toBe(
      'invalid-argument',
    );
    // A parent run must be one of the user's.
    const other = (await t.store.sessions.create('bob')).id;
    expect(
      await codeOf(() => t.store.runs.start({ sessionId: other, userId: 'bob', parentRunId: ids[0] })),
    ).toBe('not-found');
  });

  describe('runs whose process died', () => {
    /** A child process that opens a run (and a started tool call) on the session, then waits to be killed. */
    function runner(): Child {
      const c = spawnModule(
        t.env.dir,
        `${t.env.childOpen}
        const [sessionId] = process.argv.slice(2);
        await store.leases.acquire(sessionId);
        const run = await store.runs.start({ sessionId, userId: 'alice', trigger: 'every 1s' });
        await (await store.runs.journal(run)).started({ id: 'call_1', name: 'sleep' });
        console.log(JSON.stringify({ run }));
        setInterval(() => {}, 1000);
        `,
        [sessionId],
      );
      children.push(c);
      return c;
    }

    it('are marked died the next time any process opens the store; a live one is left running', async () => {
      const live = runner();
      const { run: liveRun } = JSON.parse(await live.waitFor((l) => l.includes('run')));
      const s2 = (await t.store.sessions.create('alice')).id;
      const killed = spawnModule(
        t.env.dir,
        `${t.env.childOpen}
        const [sessionId] = process.argv.slice(2);
        await store.leases.acquire(sessionId);
        const run = await store.runs.start({ sessionId, userId: 'alice' });
        console.log(JSON.stringify({ run, pid: process.pid }));
        setInterval(() => {}, 1000);
        `,
        [s2],
      );
      children.push(killed);
      const { run: deadRun, pid } = JSON.parse(await killed.waitFor((l) => l.includes('run')));
      killed.child.kill('SIGKILL');
      await killed.exited;

      const opened = await t.env.open();
      const runs = await opened.runs.list({ userId: 'alice' });
      expect(runs.find((r) => r.id === deadRun)).toMatchObject({
        status: 'died',
        error: `died: process ${pid} on ${hostname()} stopped without finishing it`,
      });
      expect(runs.find((r) => r.id === liveRun)).toMatchObject({ status: 'running' });
      expect(await opened.runs.reap()).toEqual([]);

      // Killed too: reaping again (a long-lived process) finds it, and its started call is "result unknown".
      live.child.kill('SIGKILL');
      await live.exited;
      expect(await opened.runs.reap()).toEqual([liveRun]);
      expect(await opened.runs.get(liveRun, 'alice')).toMatchObject({
        status: 'died',
        trigger: 'every 1s',
        toolCalls: [{ callId: 'call_1', status: 'started', resultUnknown: true }],
      });
    });

    it('a run on another machine dies when its lease expires without a heartbeat', async () => {
      const c = runner();
      const { run } = JSON.parse(await c.waitFor((l) => l.includes('run')));
      c.child.kill('SIGSTOP');
      try {
        await t.env.exec("UPDATE leases SET pid_scope = 'elsewhere', host = 'other' WHERE session_id = ?", [
          sessionId,
        ]);
        expect(await t.store.runs.reap()).toEqual([]);
        await t.env.exec('UPDATE leases SET expires_at = 0 WHERE session_id = ?', [sessionId]);
        expect(await t.store.runs.reap()).toEqual([run]);
      } finally {
        c.child.kill('SIGKILL');
      }
    });
  });
});
