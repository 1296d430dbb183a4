import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawnModule } from '@birdie/test-utils';
import { describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, useBackend } from './harness.js';

describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  describe('the tool journal', () => {
    it('records start and end per call id; a started call of an ended run is "result unknown"', async () => {
      const s = await t.store.sessions.create('alice');
      const run = await t.store.runs.start({ sessionId: s.id, userId: 'alice' });
      const journal = await t.store.runs.journal(run);
      await journal.started({ id: 'call_a', name: 'run_bash', skill: 'shell' });
      await journal.started({ id: 'call_b', name: 'fetch' });
      await journal.finished({
        id: 'call_a',
        ok: false,
        durationMs: 7,
        truncated: false,
        error: 'token sk-abcdefghijklmnopqrstuv1234',
      });

      let [logged] = await t.store.runs.list({ userId: 'alice' });
      expect(logged!.toolCalls).toMatchObject([
        {
          callId: 'call_a',
          name: 'run_bash',
          skill: 'shell',
          status: 'error',
          resultUnknown: false,
          durationMs: 7,
          error: 'token [redacted]',
        },
        { callId: 'call_b', name: 'fetch', status: 'started', resultUnknown: false },
      ]);
      expect(logged!.toolCalls[1]!.durationMs).toBeUndefined();
      expect(logged!.toolCalls[1]!.endedAt).toBeUndefined();

      await t.store.runs.finish(run, { status: 'interrupted' });
      [logged] = await t.store.runs.list({ userId: 'alice' });
      expect(logged!.toolCalls[1]).toMatchObject({ status: 'started', resultUnknown: true });

      expect(
        await codeOf(() => journal.finished({ id: 'call_never', ok: true, durationMs: 1, truncated: false })),
      ).toBe('not-found');
      expect(await codeOf(() => journal.started({ id: '', name: 'x' }))).toBe('invalid-argument');
      expect(await codeOf(() => journal.started({ id: 'a\0b', name: 'x' }))).toBe('invalid-argument');
    });

    it('startedAmong answers for the whole session, across runs, and only for it', async () => {
      const s = await t.store.sessions.create('alice');
      const otherSession = await t.store.sessions.create('alice');
      const first = await t.store.runs.journal(
        await t.store.runs.start({ sessionId: s.id, userId: 'alice' }),
      );
      await first.started({ id: 'call_1', name: 'x' });
      await first.started({ id: 'call_2', name: 'x' });
      await first.finished({ id: 'call_2', ok: true, durationMs: 1, truncated: false });
      await (
        await t.store.runs.journal(await t.store.runs.start({ sessionId: otherSession.id, userId: 'alice' }))
      ).started({ id: 'call_3', name: 'x' });

      const second = await t.store.runs.journal(
        await t.store.runs.start({ sessionId: s.id, userId: 'alice' }),
      );
      expect(await second.startedAmong(['call_1', 'call_2', 'call_3', 'call_4'])).toEqual(
        new Set(['call_1', 'call_2']),
      );
      expect(await second.startedAmong([])).toEqual(new Set());
      // Which of them ended, and how: call_2 succeeded; call_1 never reported back.
      expect(await second.finishedAmong(['call_1', 'call_2', 'call_3'])).toEqual(new Map([['call_2', true]]));
      // A call started again in a later run (a retry) is one row per run.
      await second.started({ id: 'call_1', name: 'x' });
      await second.started({ id: 'call_1', name: 'x' });
      const runs = await t.store.runs.list({ userId: 'alice', sessionId: s.id });
      expect(runs.map((r) => r.toolCalls.map((t) => t.callId))).toEqual([['call_1'], ['call_1', 'call_2']]);
    });

    it('a started record survives a SIGKILL right after the effect: the call is known to have started', async () => {
      const s = await t.store.sessions.create('alice');
      const effect = join(t.env.dir, 'effect.txt');
      const child = spawnModule(
        t.env.dir,
        `${t.env.childOpen}
        import { writeFileSync } from 'node:fs';
        const [sessionId, effect] = process.argv.slice(2);
        await store.leases.acquire(sessionId);
        const journal = await store.runs.journal(await store.runs.start({ sessionId, userId: 'alice' }));
        await journal.started({ id: 'call_effect', name: 'run_bash' });
        writeFileSync(effect, 'done');
        console.log('effect');
        setInterval(() => {}, 1000);
      `,
        [s.id, effect],
      );
      await child.waitFor((l) => l === 'effect');
      child.child.kill('SIGKILL');
      await child.exited;
      expect(existsSync(effect)).toBe(true);

      const lease = await t.store.leases.acquire(s.id);
      const journal = await t.store.runs.journal(
        await t.store.runs.start({ sessionId: s.id, userId: 'alice' }),
      );
      expect(await journal.startedAmong(['call_effect', 'call_other'])).toEqual(new Set(['call_effect']));
      const killed = (await t.store.runs.list({ userId: 'alice' }))[1]!;
      expect(killed.status).toBe('died');
      expect(killed.toolCalls).toMatchObject([
        { callId: 'call_effect', status: 'started', resultUnknown: true },
      ]);
      await lease.release();
    });
  });
});
