// Reported: an options argument that is not an object (`null`, a string) or a `now` that is not a Date made the store
// throw a bare TypeError ("Cannot read properties of null", "date.getFullYear is not a function"), or it was taken as
// no options at all. A library's caller gets the store's own error naming the argument, on either back end.
import { describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { rejection, useBackend } from './harness.js';

describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);

  it('an options argument that is not an object is invalid-argument naming it, and nothing is written', async () => {
    const session = await t.store.sessions.create('alice');
    const runId = await t.store.runs.start({ sessionId: session.id, userId: 'alice' });
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['opts', () => t.store.sessions.create('alice', null as never)],
      ['opts', () => t.store.sessions.create('alice', 'today' as never)],
      ['run', () => t.store.runs.start(null as never)],
      ['run', () => t.store.runs.finish(runId, null as never)],
      ['progress', () => t.store.runs.progress(runId, null as never)],
      ['opts', () => t.store.leases.acquire(session.id, null as never)],
      ['opts', () => t.store.tokens.create('alice', null as never)],
      ['opts', () => t.store.tokens.list('alice', 'revoked' as never)],
      ['opts', () => t.store.tasks.list('alice', 'all' as never)],
      ['outcome', () => t.store.tasks.finish(1, 'failed' as never)],
      ['turn', () => t.store.turns.begin(null as never)],
      ['changes', () => t.store.files.apply(session.id, 'alice', 'x' as never)],
      ['opts', () => t.store.admissions.admit('k', null as never)],
      ['query', () => t.store.runs.list(null as never)],
      ['task', () => t.store.tasks.create(null as never)],
      ['query', () => t.store.turns.events(session.id, 'alice', null as never)],
    ];
    for (const [name, call] of calls) {
      const error = await rejection(call);
      expect(error.code, `${call}`).toBe('invalid-argument');
      expect(error.message, `${call}`).toContain(name);
    }
    expect((await t.store.sessions.list('alice')).map((s) => s.id)).toEqual([session.id]);
    expect(await t.store.tokens.list('alice')).toEqual([]);
  });

  it("a session's now that is not a valid Date is invalid-argument, not a TypeError or a failed insert", async () => {
    for (const now of ['2026-12-06', new Date(Number.NaN), 1_765_000_000_000]) {
      const error = await rejection(() => t.store.sessions.create('alice', { now: now as never }));
      expect(error.code).toBe('invalid-argument');
      expect(error.message).toBe('now must be a valid Date');
    }
    expect(await t.store.sessions.list('alice')).toEqual([]);
    // Absent options, and options without now, are as before.
    expect((await t.store.sessions.create('alice')).id).toMatch(/_1$/);
    expect((await t.store.sessions.create('alice', { title: 'x' })).title).toBe('x');
  });
});
