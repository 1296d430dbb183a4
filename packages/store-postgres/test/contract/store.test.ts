import { validateSessionId, validateUserId } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, useBackend } from './harness.js';

// The store interface, the same cases on every back end.
describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  describe('ids', () => {
    it.each([
      '../x',
      'a/b',
      '',
      'x'.repeat(300),
      '2026-13-01_1',
      '2026-01-01_0',
      '2026-01-01_1/..',
      ' 2026-01-01_1',
    ])('rejects session id %j', async (id) => {
      expect(await codeOf(() => validateSessionId(id))).toBe('invalid-id');
      expect(await codeOf(() => t.store.sessions.get(id, 'alice'))).toBe('invalid-id');
      expect(await codeOf(() => t.store.grants.get(id, 'alice'))).toBe('invalid-id');
    });

    it('accepts YYYY-MM-DD_N', async () => {
      expect(validateSessionId('2026-11-21_12')).toBe('2026-11-21_12');
    });

    it.each(['../x', 'a/b', '', 'x'.repeat(300), '.hidden', 'a..b', 'a b'])(
      'rejects user id %j',
      async (id) => {
        expect(await codeOf(() => validateUserId(id))).toBe('invalid-id');
        expect(await codeOf(() => t.store.memory.list(id))).toBe('invalid-id');
      },
    );
  });

  describe('ready', () => {
    it('is ready while open and at its schema version; not once the schema moved on, nor after close', async () => {
      expect(await t.store.ready()).toEqual({ ready: true });
      // Another (newer) birdie migrated the data since this store opened it.
      if (backend.name === 'sqlite') await t.env.exec('PRAGMA user_version = 99');
      else await t.env.exec("INSERT INTO birdie_migrations (version, name) VALUES (99, 'from the future')");
      const moved = await t.store.ready();
      expect(moved).toMatchObject({ ready: false, code: 'migration-failed' });
      expect(moved.ready === false && moved.reason).toMatch(/ version \d+, this birdie needs \d+$/);
      await t.store.close();
      expect(await t.store.ready()).toEqual({ ready: false, code: 'closed', reason: 'the store is closed' });
    });
  });

  describe('sessions', () => {
    it('numbers sessions per local day and lists newest first per user', async () => {
      const day1 = new Date(2026, 10, 21, 9, 0);
      const a = await t.store.sessions.create('alice', { now: day1, title: 'first' });
      const b = await t.store.sessions.create('bob', { now: new Date(2026, 10, 21, 10, 0) });
      const c = await t.store.sessions.create('alice', { now: new Date(2026, 10, 21, 11, 0) });
      const d = await t.store.sessions.create('alice', { now: new Date(2026, 10, 22, 8, 0) });
      expect([a.id, b.id, c.id, d.id]).toEqual([
        '2026-11-21_1',
        '2026-11-21_2',
        '2026-11-21_3',
        '2026-11-22_1',
      ]);
      expect(a).toMatchObject({ userId: 'alice', title: 'first', turns: 0, inputTokens: 0, outputTokens: 0 });
      expect((await t.store.sessions.list('alice')).map((s) => s.id)).toEqual([d.id, c.id, a.id]);
      expect((await t.store.sessions.list('bob')).map((s) => s.id)).toEqual([b.id]);
      expect((await t.store.sessions.get(b.id, 'bob'))?.title).toBeUndefined();
      expect(await t.store.sessions.get('2026-01-01_1', 'alice')).toBeUndefined();
    });

    // Reported: `birdie sessions list` was ordered by creation while its column shows the last use, so a session
    // the user went back to stayed far down the list.
    it('lists the session used last first: a turn or a rename moves it up', async () => {
      const a = await t.store.sessions.create('alice', { now: new Date(2026, 10, 21, 9, 0) });
      const b = await t.store.sessions.create('alice', { now: new Date(2026, 10, 21, 10, 0) });
      const c = await t.store.sessions.create('alice', { now: new Date(2026, 10, 21, 11, 0) });
      const ids = async () => (await t.store.sessions.list('alice')).map((s) => s.id);
      expect(await ids()).toEqual([c.id, b.id, a.id]);
      await t.store.sessions.recordTurn(a.id, 'alice', { inputTokens: 1, outputTokens: 1 });
      expect(await ids()).toEqual([a.id, c.id, b.id]);
      await t.store.sessions.rename(b.id, 'alice', 'back to it');
      expect(await ids()).toEqual([b.id, a.id, c.id]);
    });

    it('renames, records turns and reports unknown ids', async () => {
      const s = await t.store.sessions.create('alice');
      await t.store.sessions.rename(s.id, 'alice', 'renamed');
      await t.store.sessions.recordTurn(s.id, 'alice', { inputTokens: 100, outputTokens: 20 });
      await t.store.sessions.recordTurn(s.id, 'alice', { inputTokens: 50, outputTokens: 5 });
      expect(await t.store.sessions.get(s.id, 'alice')).toMatchObject({
        title: 'renamed',
        turns: 2,
        inputTokens: 150,
        outputTokens: 25,
      });
      expect(await codeOf(() => t.store.sessions.rename('2000-01-01_1', 'alice', 'x'))).toBe('not-found');
      expect(
        await codeOf(() => t.store.sessions.recordTurn(s.id, 'alice', { inputTokens: -1, outputTokens: 0 })),
      ).toBe('invalid-argument');
      expect(await codeOf(() => t.store.sessions.delete('2000-01-01_1', 'alice'))).toBe('not-found');
    });

    it('deleting a session removes its checkpoints, grants and runs', async () => {
      const s = await t.store.sessions.create('alice');
      const keep = await t.store.sessions.create('alice');
      await t.store.grants.set(s.id, 'alice', { enabled: ['web'], disabled: [] });
      const run = await t.store.runs.start({ sessionId: s.id, userId: 'alice' });
      await (await t.store.runs.journal(run)).started({ id: 'call_1', name: 'echo' });
      const cp = t.store.checkpointer;
      for (const id of [s.id, keep.id]) {
        const config = await cp.put(
          { configurable: { thread_id: id, checkpoint_ns: '' } },
          {
            v: 4,
            id: `00000000-0000-6000-8000-00000000000${id.at(-1)}`,
            ts: new Date().toISOString(),
            channel_values: { messages: ['x'.repeat(500)] },
            channel_versions: { messages: 1 },
            versions_seen: {},
          },
          { source: 'loop', step: 0, parents: {} },
          { messages: 1 },
        );
        await cp.putWrites(config, [['messages', ['y'.repeat(500)]]], 'task');
      }
      await t.store.sessions.delete(s.id, 'alice');
      expect(await t.store.sessions.get(s.id, 'alice')).toBeUndefined();
      expect(await cp.getTuple({ configurable: { thread_id: s.id } })).toBeUndefined();
      expect(await codeOf(() => t.store.grants.get(s.id, 'alice'))).toBe('not-found');
      expect(await t.store.runs.list({ userId: 'alice' })).toEqual([]);
      for (const table of ['grants', 'runs', 'tool_calls']) {
        expect(Number(await t.env.one(`SELECT COUNT(*) AS n FROM ${table}`)), table).toBe(0);
      }
      const kept = await cp.getTuple({ configurable: { thread_id: keep.id } });
      expect(kept?.checkpoint.channel_values).toEqual({ messages: ['x'.repeat(500)] });
      expect(kept?.pendingWrites).toEqual([['task', 'messages', ['y'.repeat(500)]]]);
    });
  });

  describe('grants', () => {
    it('stores enabled/disabled sets per session', async () => {
      const s = await t.store.sessions.create('alice');
      expect(await t.store.grants.get(s.id, 'alice')).toEqual({ enabled: [], disabled: [] });
      await t.store.grants.set(s.id, 'alice', { enabled: ['web', 'shell', 'web'], disabled: ['python'] });
      expect(await t.store.grants.get(s.id, 'alice')).toEqual({
        enabled: ['shell', 'web'],
        disabled: ['python'],
      });
      await t.store.grants.set(s.id, 'alice', { enabled: [], disabled: ['web'] });
      expect(await t.store.grants.get(s.id, 'alice')).toEqual({ enabled: [], disabled: ['web'] });
      expect(
        await codeOf(() => t.store.grants.set('2000-01-01_1', 'alice', { enabled: [], disabled: [] })),
      ).toBe('not-found');
      expect(
        await codeOf(() => t.store.grants.set(s.id, 'alice', { enabled: [3 as never], disabled: [] })),
      ).toBe('invalid-argument');
    });
  });

  describe('memory', () => {
    it('belongs to a user, not a session', async () => {
      const first = await t.store.memory.add('alice', 'prefers metric units');
      await t.store.memory.add('bob', 'likes tabs');
      const second = await t.store.memory.add('alice', 'works on birdie');
      expect((await t.store.memory.list('alice')).map((m) => m.content)).toEqual([
        'prefers metric units',
        'works on birdie',
      ]);
      expect(first.createdAt).toBeInstanceOf(Date);
      expect(await t.store.memory.remove('bob', first.id)).toBe(false);
      expect(await t.store.memory.remove('alice', first.id)).toBe(true);
      expect(await t.store.memory.remove('alice', first.id)).toBe(false);
      expect((await t.store.memory.list('alice')).map((m) => m.id)).toEqual([second.id]);
      expect(await t.store.memory.list('bob')).toHaveLength(1);
      expect(await codeOf(() => t.store.memory.add('alice', '   '))).toBe('invalid-argument');
    });
  });

  describe('runs', () => {
    it('logs runs with their tool calls, newest first, by session or user', async () => {
      const a = await t.store.sessions.create('alice');
      const b = await t.store.sessions.create('bob');
      const r1 = await t.store.runs.start({ sessionId: a.id, userId: 'alice', model: 'openai:gpt-4o-mini' });
      const journal = await t.store.runs.journal(r1);
      await journal.started({ id: 'call_f', name: 'fetch', skill: 'web' });
      await journal.finished({ id: 'call_f', durationMs: 12.4, ok: true, truncated: true });
      await journal.started({ id: 'call_s', name: 'sh' });
      await journal.finished({ id: 'call_s', durationMs: 3, ok: false, truncated: false, error: 'exit 1' });
      await t.store.runs.finish(r1, { status: 'ok', inputTokens: 120, outputTokens: 30 });
      const r2 = await t.store.runs.start({ sessionId: a.id, userId: 'alice' });
      await t.store.runs.finish(r2, {
        status: 'error',
        error: 'HTTP 401 for key sk-abcdefghijklmnopqrstuvwxyz123456',
      });
      const r3 = await t.store.runs.start({ sessionId: b.id, userId: 'bob' });

      const alice = await t.store.runs.list({ userId: 'alice' });
      expect(alice.map((r) => r.id)).toEqual([r2, r1]);
      expect(alice[1]).toMatchObject({
        sessionId: a.id,
        model: 'openai:gpt-4o-mini',
        status: 'ok',
        inputTokens: 120,
        outputTokens: 30,
      });
      expect(alice[1]!.durationMs).toBeGreaterThanOrEqual(0);
      expect(alice[1]!.toolCalls).toMatchObject([
        { callId: 'call_f', name: 'fetch', skill: 'web', durationMs: 12, status: 'ok', truncated: true },
        { callId: 'call_s', name: 'sh', status: 'error', truncated: false, error: 'exit 1' },
      ]);
      expect(alice[0]!.error).toBe('HTTP 401 for key [redacted]');
      expect(await t.store.runs.list({ userId: 'bob', sessionId: b.id })).toMatchObject([
        { id: r3, status: 'running', toolCalls: [] },
      ]);
      expect((await t.store.runs.list({ userId: 'bob', limit: 1 })).map((r) => r.id)).toEqual([r3]);
      expect(await codeOf(() => t.store.runs.start({ sessionId: '2000-01-01_1', userId: 'alice' }))).toBe(
        'not-found',
      );
      expect(await codeOf(() => t.store.runs.finish(9999, { status: 'ok' }))).toBe('not-found');
      expect(await codeOf(() => t.store.runs.journal(9999))).toBe('not-found');
      expect(await codeOf(() => t.store.runs.finish(r3, { status: 'done' as never }))).toBe(
        'invalid-argument',
      );
    });
  });
});
