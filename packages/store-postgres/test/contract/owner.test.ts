import type { Store } from '@birdie/store';
import { describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { rejection as errorOf, useBackend } from './harness.js';

describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  describe('a session belongs to its user (issue 12, defect 9)', () => {
    it.each<[string, (s: Store, id: string) => unknown]>([
      ['sessions.get', (s, id) => s.sessions.get(id, 'bob')],
      ['sessions.delete', (s, id) => s.sessions.delete(id, 'bob')],
      ['sessions.rename', (s, id) => s.sessions.rename(id, 'bob', 'mine now')],
      [
        'sessions.recordTurn',
        (s, id) => s.sessions.recordTurn(id, 'bob', { inputTokens: 1, outputTokens: 1 }),
      ],
      ['sessions.repair', (s, id) => s.sessions.repair(id, 'bob')],
      ['grants.get', (s, id) => s.grants.get(id, 'bob')],
      ['grants.set', (s, id) => s.grants.set(id, 'bob', { enabled: ['shell'], disabled: [] })],
      ['runs.start', (s, id) => s.runs.start({ sessionId: id, userId: 'bob' })],
      ['runs.list', (s, id) => s.runs.list({ userId: 'bob', sessionId: id })],
    ])('%s refuses another user, naming the owner, and changes nothing', async (_name, call) => {
      const session = await t.store.sessions.create('alice', { title: 'alice only' });
      await t.store.grants.set(session.id, 'alice', { enabled: ['web'], disabled: [] });
      const error = await errorOf(() => call(t.store, session.id));
      expect(error.code).toBe('not-owner');
      expect(error.owner).toBe('alice');
      expect(error.message).toBe(`session ${session.id} belongs to user alice, not bob`);
      expect(await t.store.sessions.get(session.id, 'alice')).toMatchObject({
        title: 'alice only',
        turns: 0,
      });
      expect(await t.store.grants.get(session.id, 'alice')).toEqual({ enabled: ['web'], disabled: [] });
      expect(await t.store.runs.list({ userId: 'alice' })).toEqual([]);
    });

    it('runs.list by user shows only that user’s runs', async () => {
      const a = await t.store.sessions.create('alice');
      const b = await t.store.sessions.create('bob');
      await t.store.runs.start({ sessionId: a.id, userId: 'alice' });
      const mine = await t.store.runs.start({ sessionId: b.id, userId: 'bob' });
      expect((await t.store.runs.list({ userId: 'bob' })).map((r) => r.id)).toEqual([mine]);
    });

    it('the user id is validated like any id', async () => {
      const session = await t.store.sessions.create('alice');
      expect((await errorOf(() => t.store.sessions.get(session.id, '../alice'))).code).toBe('invalid-id');
      expect((await errorOf(() => t.store.sessions.get(session.id, undefined as never))).code).toBe(
        'invalid-id',
      );
      expect((await errorOf(() => t.store.runs.list({ userId: '' }))).code).toBe('invalid-id');
    });
  });
});
