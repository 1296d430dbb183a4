import { describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, useBackend } from './harness.js';

// The API's turn log (issue 27): one turn per Idempotency-Key, even when two stores (workers) race for it, and the
// turn's events in order, for replay on any worker.
describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  describe('turn log', () => {
    it('one key makes one turn, even when two stores ask at once; another key or none makes a new one', async () => {
      const s = await t.store.sessions.create('alice');
      const other = await t.env.open();
      const ask = (store: typeof t.store) =>
        store.turns.begin({ sessionId: s.id, userId: 'alice', key: 'k-1', requestDigest: 'd1' });
      const results = await Promise.all([ask(t.store), ask(other), ask(t.store), ask(other)]);
      expect(results.filter((r) => r.created)).toHaveLength(1);
      expect(new Set(results.map((r) => r.turn.id)).size).toBe(1);
      expect(results[0]!.turn).toMatchObject({
        sessionId: s.id,
        userId: 'alice',
        key: 'k-1',
        requestDigest: 'd1',
        state: 'starting',
      });
      const another = await t.store.turns.begin({ sessionId: s.id, userId: 'alice', key: 'k-2' });
      const plain = await t.store.turns.begin({ sessionId: s.id, userId: 'alice' });
      const plain2 = await t.store.turns.begin({ sessionId: s.id, userId: 'alice' });
      expect(another.created && plain.created && plain2.created).toBe(true);
      expect(new Set([results[0]!.turn.id, another.turn.id, plain.turn.id, plain2.turn.id]).size).toBe(4);
      expect(plain.turn.key).toBeUndefined();
      // The same key on another session is another turn.
      const s2 = await t.store.sessions.create('alice');
      expect((await t.store.turns.begin({ sessionId: s2.id, userId: 'alice', key: 'k-1' })).created).toBe(
        true,
      );
    });

    it('an empty append records nothing and marks the turn alive (its updatedAt); an ended turn refuses it', async () => {
      const s = await t.store.sessions.create('alice');
      const { turn } = await t.store.turns.begin({ sessionId: s.id, userId: 'alice' });
      await t.store.turns.append(turn.id, [{ type: 'session', id: s.id }]);
      const before = (await t.store.turns.get(turn.id, 'alice'))!.updatedAt.getTime();
      // The clock moves on before the mark: updatedAt is in ms.
      const at = Date.now();
      while (Date.now() === at) await new Promise((resolve) => setTimeout(resolve, 1));
      const other = await t.env.open();
      expect(await other.turns.append(turn.id, [])).toEqual([]);
      const marked = (await t.store.turns.get(turn.id, 'alice'))!;
      expect(marked.updatedAt.getTime()).toBeGreaterThan(before);
      expect(marked.state).toBe('running');
      expect((await t.store.turns.events(s.id, 'alice', { afterId: 0 })).map((e) => e.event.type)).toEqual([
        'session',
      ]);
      await t.store.turns.end(turn.id, 'ok');
      expect(await codeOf(() => other.turns.append(turn.id, []))).toBe('invalid-argument');
    });

    it('records events in order (a starting turn becomes running), then ends once; replays by id and by turn', async () => {
      const s = await t.store.sessions.create('alice');
      const { turn } = await t.store.turns.begin({ sessionId: s.id, userId: 'alice' });
      const first = await t.store.turns.append(turn.id, [
        { type: 'session', id: s.id },
        { type: 'token', text: 'Hel' },
      ]);
      expect(first.map((e) => e.event)).toEqual([
        { type: 'session', id: s.id },
        { type: 'token', text: 'Hel' },
      ]);
      expect(first[1]!.id).toBeGreaterThan(first[0]!.id);
      expect((await t.store.turns.get(turn.id, 'alice'))?.state).toBe('running');
      const other = await t.env.open();
      const second = await other.turns.append(turn.id, [{ type: 'result', status: 'ok' }]);
      expect(second[0]!.id).toBeGreaterThan(first[1]!.id);
      expect(await t.store.turns.end(turn.id, 'ok')).toEqual([]);
      // The first end wins: a later one appends nothing.
      expect(await other.turns.end(turn.id, 'died', [{ type: 'error' }])).toBeUndefined();
      const ended = await other.turns.get(turn.id, 'alice');
      expect(ended).toMatchObject({ state: 'ended', status: 'ok' });
      expect(ended?.endedAt).toBeInstanceOf(Date);
      expect(await codeOf(() => t.store.turns.append(turn.id, [{ type: 'token', text: 'late' }]))).toBe(
        'invalid-argument',
      );

      const next = await t.store.turns.begin({ sessionId: s.id, userId: 'alice' });
      const [later] = await t.store.turns.append(next.turn.id, [{ type: 'session', id: s.id }]);
      const all = await other.turns.events(s.id, 'alice');
      expect(all.map((e) => [e.turnId, e.event.type])).toEqual([
        [turn.id, 'session'],
        [turn.id, 'token'],
        [turn.id, 'result'],
        [next.turn.id, 'session'],
      ]);
      expect((await other.turns.events(s.id, 'alice', { afterId: first[1]!.id })).map((e) => e.id)).toEqual([
        second[0]!.id,
        later!.id,
      ]);
      expect(
        (await other.turns.events(s.id, 'alice', { turnId: turn.id, limit: 2 })).map((e) => e.id),
      ).toEqual(first.map((e) => e.id));
      expect((await other.turns.latest(s.id, 'alice'))?.id).toBe(next.turn.id);
    });

    it('a turn that never started is discarded with its key, which can then be used again', async () => {
      const s = await t.store.sessions.create('alice');
      const first = await t.store.turns.begin({ sessionId: s.id, userId: 'alice', key: 'k' });
      await t.store.turns.discard(first.turn.id);
      expect(await t.store.turns.get(first.turn.id, 'alice')).toBeUndefined();
      const again = await t.store.turns.begin({ sessionId: s.id, userId: 'alice', key: 'k' });
      expect(again.created).toBe(true);
      // A running turn is not discarded.
      await t.store.turns.append(again.turn.id, [{ type: 'session' }]);
      await t.store.turns.discard(again.turn.id);
      expect((await t.store.turns.get(again.turn.id, 'alice'))?.state).toBe('running');
      // An end may carry the turn's last events, appended with it.
      const last = await t.store.turns.end(again.turn.id, 'died', [{ type: 'error' }, { type: 'result' }]);
      expect(last?.map((e) => e.event.type)).toEqual(['error', 'result']);
      expect((await t.store.turns.events(s.id, 'alice')).map((e) => e.event.type)).toEqual([
        'session',
        'error',
        'result',
      ]);
    });

    it("checks the owner and the arguments: another user's session is not-owner, a bad key invalid-argument", async () => {
      const s = await t.store.sessions.create('alice');
      const { turn } = await t.store.turns.begin({ sessionId: s.id, userId: 'alice' });
      expect(await codeOf(() => t.store.turns.begin({ sessionId: s.id, userId: 'bob', key: 'k' }))).toBe(
        'not-owner',
      );
      expect(await codeOf(() => t.store.turns.get(turn.id, 'bob'))).toBe('not-owner');
      expect(await codeOf(() => t.store.turns.events(s.id, 'bob'))).toBe('not-owner');
      expect(await codeOf(() => t.store.turns.latest(s.id, 'bob'))).toBe('not-owner');
      expect(await codeOf(() => t.store.turns.latest('2026-01-01_9', 'alice'))).toBe('not-found');
      for (const key of ['', 'with space', 'x'.repeat(256), 'ünï'])
        expect(await codeOf(() => t.store.turns.begin({ sessionId: s.id, userId: 'alice', key })), key).toBe(
          'invalid-argument',
        );
      expect(await codeOf(() => t.store.turns.append(turn.id, [{ text: 'no type' } as never]))).toBe(
        'invalid-argument',
      );
      expect(await codeOf(() => t.store.turns.append(999_999, [{ type: 'x' }]))).toBe('not-found');
    });

    it('prune removes turns (keys and events) last changed before the time; deleting the session removes them too', async () => {
      const s = await t.store.sessions.create('alice');
      const old = await t.store.turns.begin({ sessionId: s.id, userId: 'alice', key: 'old' });
      await t.store.turns.append(old.turn.id, [{ type: 'session' }]);
      await t.store.turns.end(old.turn.id, 'ok');
      await t.env.exec('UPDATE api_turns SET updated_at = ? WHERE id = ?', [
        Date.now() - 25 * 3600_000,
        old.turn.id,
      ]);
      const fresh = await t.store.turns.begin({ sessionId: s.id, userId: 'alice', key: 'fresh' });
      await t.store.turns.append(fresh.turn.id, [{ type: 'session' }]);
      expect(await t.store.turns.prune(new Date(Date.now() - 24 * 3600_000))).toBe(1);
      expect(await t.store.turns.get(old.turn.id, 'alice')).toBeUndefined();
      expect((await t.store.turns.events(s.id, 'alice')).map((e) => e.turnId)).toEqual([fresh.turn.id]);
      expect((await t.store.turns.begin({ sessionId: s.id, userId: 'alice', key: 'old' })).created).toBe(
        true,
      );

      await t.store.sessions.delete(s.id, 'alice');
      expect(Number(await t.env.one('SELECT count(*) AS n FROM api_turns'))).toBe(0);
      expect(Number(await t.env.one('SELECT count(*) AS n FROM turn_events'))).toBe(0);
    });
  });
});
