import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { SessionLease, Store } from '@birdie/store';
import { type Child, spawnModule } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { rejection, rejection as thrown, useBackend } from './harness.js';

// One writer per session, on every back end: the same lease rules, messages and fencing.
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
  const other = (): Promise<Store> => t.env.open();

  /** A child process that holds the session's lease and has a run open on it, until told or killed. */
  const HOLDER = `
  const [sessionId, ttl] = process.argv.slice(2);
  const lease = await store.leases.acquire(sessionId, { ttlMs: Number(ttl) });
  const run = await store.runs.start({ sessionId, userId: 'alice' });
  const journal = await store.runs.journal(run);
  await journal.started({ id: 'call_held', name: 'sleep' });
  console.log(JSON.stringify({ held: true, pid: process.pid, run }));
  const { createInterface } = await import('node:readline');
  // Commands on stdin (signals race with SIGSTOP/SIGCONT): "write" a checkpoint, "release" the lease.
  createInterface({ input: process.stdin }).on('line', async (command) => {
    if (command === 'release') {
      await lease.release();
      console.log(JSON.stringify({ released: true }));
      return;
    }
    try {
      const config = { configurable: { thread_id: sessionId, checkpoint_ns: '' } };
      await store.checkpointer.put(config, { v: 4, id: '1f000000-0000-6000-8000-000000000001', ts: new Date().toISOString(),
        channel_values: {}, channel_versions: {}, versions_seen: {} }, { source: 'loop', step: 0, parents: {} }, {});
      console.log(JSON.stringify({ wrote: true }));
    } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }
  });
  `;

  /** A stale holder that wakes up and ends its turn as if nothing happened: answer, tokens and its lease. */
  function finishLate(run: number, lease: SessionLease) {
    return t.store.runs.finish(run, {
      status: 'ok',
      inputTokens: 40,
      outputTokens: 4,
      answer: 'late',
      sessionTurn: { inputTokens: 40, outputTokens: 4 },
      release: lease,
    });
  }

  function holder(ttlMs = 30_000): Child {
    const c = spawnModule(t.env.dir, `${t.env.childOpen}\n${HOLDER}`, [sessionId, String(ttlMs)]);
    children.push(c);
    return c;
  }

  describe('leases in one process', () => {
    it('acquire, holder, release (idempotent); close releases', async () => {
      const lease = await t.store.leases.acquire(sessionId);
      expect(lease.sessionId).toBe(sessionId);
      expect(lease.holder).toMatchObject({ host: hostname(), pid: process.pid });
      expect(lease.holder.expiresAt.getTime() - lease.holder.since.getTime()).toBe(30_000);
      expect(lease.previous).toBeUndefined();
      expect(await t.store.leases.holder(sessionId)).toEqual(lease.holder);
      await lease.assertHeld();
      await lease.release();
      await lease.release();
      expect(await t.store.leases.holder(sessionId)).toBeUndefined();
      expect((await thrown(() => lease.assertHeld())).code).toBe('lease-lost');

      const second = await other();
      await second.leases.acquire(sessionId);
      expect((await t.store.leases.holder(sessionId))?.owner).not.toBe(lease.holder.owner);
      await second.close();
      expect(await t.store.leases.holder(sessionId)).toBeUndefined();
    });

    it('a second holder is refused at once with the exact message and the holder', async () => {
      const lease = await t.store.leases.acquire(sessionId);
      const error = await rejection((await other()).leases.acquire(sessionId));
      expect(error.code).toBe('session-busy');
      expect(error.message).toBe(
        `session ${sessionId} is in use by process ${process.pid} on ${hostname()} since ${lease.holder.since.toISOString()}`,
      );
      expect(error.holder).toEqual(lease.holder);
      // The same store is one writer too: a second turn in this process waits like any other.
      expect((await rejection(t.store.leases.acquire(sessionId))).code).toBe('session-busy');
    });

    it('waits up to waitMs, telling onWait once, and gets the lease when it is released', async () => {
      const lease = await t.store.leases.acquire(sessionId);
      const told: unknown[] = [];
      setTimeout(() => lease.release(), 300);
      const next = await (await other()).leases.acquire(sessionId, {
        waitMs: 10_000,
        onWait: (h) => told.push(h),
      });
      expect(told).toEqual([lease.holder]);
      expect(next.holder.owner).not.toBe(lease.holder.owner);
      expect(next.previous).toBeUndefined();
    });

    it('stops waiting when the signal aborts', async () => {
      await t.store.leases.acquire(sessionId);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const waiting = (await other()).leases.acquire(sessionId, {
        waitMs: 60_000,
        signal: controller.signal,
      });
      await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    });

    it('fences writes: another store cannot write a held session, and a taken-over holder gets lease-lost', async () => {
      const lease = await t.store.leases.acquire(sessionId);
      const intruder = await other();
      const config = { configurable: { thread_id: sessionId, checkpoint_ns: '' } };
      const checkpoint = {
        v: 4,
        id: '1f000000-0000-6000-8000-000000000001',
        ts: new Date(0).toISOString(),
        channel_values: {},
        channel_versions: {},
        versions_seen: {},
      };
      const meta = { source: 'loop' as const, step: 0, parents: {} };
      expect((await rejection(intruder.checkpointer.put(config, checkpoint, meta, {}))).code).toBe(
        'session-busy',
      );
      expect((await thrown(() => intruder.runs.start({ sessionId, userId: 'alice' }))).code).toBe(
        'session-busy',
      );
      expect((await thrown(() => intruder.sessions.delete(sessionId, 'alice'))).code).toBe('session-busy');
      // The holder writes freely.
      await t.store.checkpointer.put(config, checkpoint, meta, {});
      const run = await t.store.runs.start({ sessionId, userId: 'alice' });

      // Simulate the holder's lease being taken over after it expired (a paused process).
      await t.env.exec('UPDATE leases SET expires_at = 0 WHERE session_id = ?', [sessionId]);
      const taker = await intruder.leases.acquire(sessionId);
      expect(taker.previous?.owner).toBe(lease.holder.owner);
      expect((await intruder.runs.list({ userId: 'alice' })).find((r) => r.id === run)?.status).toBe('died');

      const lost = await rejection(
        t.store.checkpointer.put(config, { ...checkpoint, id: checkpoint.id.replace(/1$/, '2') }, meta, {}),
      );
      expect(lost.code).toBe('lease-lost');
      expect(lost.message).toContain(`taken over by process ${process.pid} on ${hostname()}`);
      expect((await thrown(() => lease.assertHeld())).code).toBe('lease-lost');
      expect(
        (await thrown(async () => (await t.store.runs.journal(run)).started({ id: 'call_late', name: 'x' })))
          .code,
      ).toBe('lease-lost');
    });

    it("fences a turn's end: a taken-over holder's runs.finish adds nothing to the session and leaves its runs as the takeover marked them", async () => {
      const intruder = await other();
      const lease = await t.store.leases.acquire(sessionId);
      const run = await t.store.runs.start({ sessionId, userId: 'alice', model: 'fast' });
      const subagent = await t.store.runs.start({ sessionId, userId: 'alice', parentRunId: run });

      // The holder pauses past its TTL (expired as the other fence tests do) and another worker takes over.
      await t.env.exec('UPDATE leases SET expires_at = 0 WHERE session_id = ?', [sessionId]);
      const taker = await intruder.leases.acquire(sessionId);
      const next = await intruder.runs.start({ sessionId, userId: 'alice' });
      const session = await intruder.sessions.get(sessionId, 'alice');
      const died = await intruder.runs.get(run, 'alice');
      expect(died).toMatchObject({
        status: 'died',
        error: expect.stringContaining('stopped holding the session'),
      });
      const diedSubagent = await intruder.runs.get(subagent, 'alice');

      // The stale holder wakes up and ends its subagent's run, then its turn: both refused, nothing written.
      const lostSubagent = await rejection(t.store.runs.finish(subagent, { status: 'ok', answer: 'late' }));
      expect(lostSubagent.code).toBe('lease-lost');
      const lost = await rejection(finishLate(run, lease));
      expect(lost.code).toBe('lease-lost');
      expect(lost.message).toContain(`taken over by process ${process.pid} on ${hostname()}`);
      expect(await intruder.sessions.get(sessionId, 'alice')).toEqual(session);
      expect(await intruder.runs.get(run, 'alice')).toEqual(died);
      expect(await intruder.runs.get(subagent, 'alice')).toEqual(diedSubagent);
      expect(await intruder.leases.holder(sessionId)).toEqual(taker.holder);
      await lease.release();
      expect(await intruder.leases.holder(sessionId)).toEqual(taker.holder);

      // The new holder's turn ends as usual.
      await intruder.runs.finish(next, {
        status: 'ok',
        sessionTurn: { inputTokens: 7, outputTokens: 1 },
        release: taker,
      });
      expect(await intruder.sessions.get(sessionId, 'alice')).toMatchObject({
        turns: 1,
        inputTokens: 7,
        outputTokens: 1,
      });
      expect(await intruder.runs.get(next, 'alice')).toMatchObject({ status: 'ok' });
    });

    it("fences a turn's end after the new holder let go: a holder that knows it lost the lease still gets lease-lost", async () => {
      const intruder = await other();
      const lease = await t.store.leases.acquire(sessionId);
      const run = await t.store.runs.start({ sessionId, userId: 'alice', model: 'fast' });

      // The holder pauses past its TTL; another worker takes over, runs a turn and lets go: no lease row is left.
      await t.env.exec('UPDATE leases SET expires_at = 0 WHERE session_id = ?', [sessionId]);
      const taker = await intruder.leases.acquire(sessionId);
      const next = await intruder.runs.start({ sessionId, userId: 'alice' });
      await intruder.runs.finish(next, {
        status: 'ok',
        sessionTurn: { inputTokens: 7, outputTokens: 1 },
        release: taker,
      });
      expect(await intruder.leases.holder(sessionId)).toBeUndefined();
      const session = await intruder.sessions.get(sessionId, 'alice');
      const died = await intruder.runs.get(run, 'alice');
      expect(died).toMatchObject({ status: 'died' });

      // The stale holder wakes up: its lease check (as its heartbeat does) finds no row and marks the lease lost.
      expect((await thrown(() => lease.assertHeld())).code).toBe('lease-lost');
      const lost = await rejection(finishLate(run, lease));
      expect(lost.code).toBe('lease-lost');
      expect(await intruder.runs.get(run, 'alice')).toEqual(died);
      expect(await intruder.sessions.get(sessionId, 'alice')).toEqual(session);
    });

    it('checks a pid only where it means something: a dead pid from another machine or pid namespace waits for expiry', async () => {
      const c = holder();
      const { pid } = JSON.parse(await c.waitFor((l) => l.includes('held')));
      c.child.kill('SIGKILL');
      await c.exited;
      await t.env.exec(
        "UPDATE leases SET pid_scope = 'another-boot/pid:[1]', host = 'elsewhere' WHERE session_id = ?",
        [sessionId],
      );
      const error = await rejection(t.store.leases.acquire(sessionId));
      expect(error).toMatchObject({ code: 'session-busy', holder: { pid, host: 'elsewhere' } });
      await t.env.exec('UPDATE leases SET expires_at = 0 WHERE session_id = ?', [sessionId]);
      expect((await t.store.leases.acquire(sessionId)).previous).toMatchObject({ pid, host: 'elsewhere' });
    });

    it('validates its arguments', async () => {
      expect((await rejection(t.store.leases.acquire('../x'))).code).toBe('invalid-id');
      expect((await rejection(t.store.leases.acquire(sessionId, { waitMs: -1 }))).code).toBe(
        'invalid-argument',
      );
      expect((await rejection(t.store.leases.acquire(sessionId, { ttlMs: 10 }))).code).toBe(
        'invalid-argument',
      );
    });
  });

  // What `birdie serve` admits a turn with (one of the user's slots, `turn-slot:<user>:<n>`): leases taken at the same
  // instant, in one process or several, go to exactly one taker.
  describe('simultaneous acquires of one key', () => {
    const keyOf = (kind: string) => (kind === 'session' ? sessionId : 'turn-slot:alice@example.com:0');

    it.each(['session', 'turn-slot'])(
      'on the same store object, exactly one gets the %s lease',
      async (kind) => {
        const key = keyOf(kind);
        const tries = await Promise.allSettled(Array.from({ length: 6 }, () => t.store.leases.acquire(key)));
        const won = tries.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        const lost = tries.flatMap((r) => (r.status === 'rejected' ? [r.reason as { code?: string }] : []));
        expect(won).toHaveLength(1);
        expect(lost.map((e) => e.code)).toEqual(Array(5).fill('session-busy'));
        expect((await t.store.leases.holder(key))?.owner).toBe(won[0]!.holder.owner);
        await won[0]!.release();
        expect(await t.store.leases.holder(key)).toBeUndefined();
        await (await t.store.leases.acquire(key)).release();
      },
    );

    it.each(['session', 'turn-slot'])(
      'on two stores over the same data, exactly one gets the %s lease',
      async (kind) => {
        const key = keyOf(kind);
        const stores = [t.store, await other(), t.store, await other()];
        const tries = await Promise.allSettled(stores.map((s) => s.leases.acquire(key)));
        const won = tries.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        expect(won).toHaveLength(1);
        expect(tries.filter((r) => r.status === 'rejected')).toHaveLength(3);
        await won[0]!.release();
      },
    );

    it('a turn slot key names a user and a slot number; anything else is invalid-id', async () => {
      for (const bad of [
        'turn-slot:alice',
        'turn-slot:alice:x',
        'turn-slot:../x:0',
        'turn-slot::0',
        'turn-slot:a b:1',
      ])
        expect((await rejection(t.store.leases.acquire(bad))).code).toBe('invalid-id');
      const lease = await t.store.leases.acquire('turn-slot:alice:12');
      expect((await rejection(t.store.leases.acquire('turn-slot:alice:12'))).code).toBe('session-busy');
      await lease.release();
    });
  });

  describe('leases across processes', () => {
    it('a holder killed with SIGKILL is taken over at once; its running run becomes died', async () => {
      const c = holder();
      const { pid, run } = JSON.parse(await c.waitFor((l) => l.includes('held')));
      const busy = await rejection(t.store.leases.acquire(sessionId));
      expect(busy.code).toBe('session-busy');
      expect(busy.holder).toMatchObject({ pid, host: hostname() });
      expect(busy.message).toMatch(
        new RegExp(
          `^session ${sessionId} is in use by process ${pid} on ${hostname()} since \\d{4}-\\d\\d-\\d\\dT`,
        ),
      );

      c.child.kill('SIGKILL');
      await c.exited;
      const lease = await t.store.leases.acquire(sessionId);
      expect(lease.previous).toMatchObject({ pid, host: hostname() });
      const [logged] = await t.store.runs.list({ userId: 'alice' });
      expect(logged).toMatchObject({ id: run, status: 'died' });
      expect(logged!.error).toContain(`process ${pid} on ${hostname()}`);
      // The call it had started is "started, result unknown" in the run log.
      expect(logged!.toolCalls).toMatchObject([
        { callId: 'call_held', status: 'started', resultUnknown: true },
      ]);
    });

    it('waits for a live holder, then takes over its expired lease when it stops renewing (SIGSTOP); the holder is fenced after SIGCONT', async () => {
      const c = holder(600);
      const { pid } = JSON.parse(await c.waitFor((l) => l.includes('held')));
      process.kill(pid, 'SIGSTOP');
      const told: number[] = [];
      try {
        const lease = await t.store.leases.acquire(sessionId, {
          waitMs: 15_000,
          onWait: (h) => told.push(h.pid),
        });
        expect(told).toEqual([pid]);
        expect(lease.previous?.pid).toBe(pid);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      c.send('write');
      const line = JSON.parse(await c.waitFor((l) => l.includes('code') || l.includes('wrote')));
      expect(line.code).toBe('lease-lost');
    });

    it('waits for a holder that releases, with onWait naming it', async () => {
      const c = holder();
      const { pid } = JSON.parse(await c.waitFor((l) => l.includes('held')));
      const told: number[] = [];
      setTimeout(() => c.send('release'), 300);
      const lease = await t.store.leases.acquire(sessionId, {
        waitMs: 10_000,
        onWait: (h) => told.push(h.pid),
      });
      expect(told).toEqual([pid]);
      expect(lease.previous).toBeUndefined();
    });

    it('two processes on one session never interleave: their critical sections are strictly sequential', async () => {
      const log = join(t.env.dir, 'sections.log');
      const script = `
        import { appendFileSync } from 'node:fs';
        const [sessionId, log] = process.argv.slice(2);
        for (let i = 0; i < 8; i += 1) {
          const lease = await store.leases.acquire(sessionId, { waitMs: 30_000 });
          appendFileSync(log, 'start ' + process.pid + '\\n');
          await new Promise((r) => setTimeout(r, 15));
          await lease.assertHeld();
          appendFileSync(log, 'end ' + process.pid + '\\n');
          await lease.release();
        }
        await store.close();
        console.log(JSON.stringify({ done: true }));
      `;
      const workers = [0, 1].map(() =>
        spawnModule(t.env.dir, `${t.env.childOpen}\n${script}`, [sessionId, log]),
      );
      children.push(...workers);
      expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
      const lines = readFileSync(log, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(32);
      for (let i = 0; i < lines.length; i += 2) {
        const [start, end] = [lines[i]!.split(' '), lines[i + 1]!.split(' ')];
        expect([start[0], end[0], start[1]]).toEqual(['start', 'end', end[1]]);
      }
    }, 60_000);
  });
});
