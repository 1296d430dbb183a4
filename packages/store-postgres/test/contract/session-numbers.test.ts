import { validateSessionId } from '@birdie/store';
import { type Child, spawnModule } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, useBackend } from './harness.js';

// Session numbers: across the store (`YYYY-MM-DD_N`, a single user's CLI), or among the user's own sessions
// (`perUser`: `USER~YYYY-MM-DD_N`, a shared server's), on every back end.
describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);
  const children: Child[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) {
      c.child.kill('SIGKILL');
      await c.exited;
    }
  });
  const at = (hour: number, day = 21) => new Date(2026, 10, day, hour);

  it('per user: each user counts from 1, per local day; the id carries the user', async () => {
    const create = async (user: string, now: Date) =>
      (await t.store.sessions.create(user, { now, perUser: true })).id;
    expect([await create('alice', at(9)), await create('alice', at(10))]).toEqual([
      'alice~2026-11-21_1',
      'alice~2026-11-21_2',
    ]);
    expect(await create('bob', at(11))).toBe('bob~2026-11-21_1');
    expect(await create('alice', at(12))).toBe('alice~2026-11-21_3');
    expect(await create('bob', at(8, 22))).toBe('bob~2026-11-22_1');
    expect(await create('a.b@example.org', at(9))).toBe('a.b@example.org~2026-11-21_1');
    expect((await t.store.sessions.list('bob')).map((s) => s.id)).toEqual([
      'bob~2026-11-22_1',
      'bob~2026-11-21_1',
    ]);
    expect(await t.store.sessions.get('bob~2026-11-21_1', 'bob')).toMatchObject({ userId: 'bob' });
  });

  it("a deleted session's number is never given again: not the newest's, in either kind of id", async () => {
    const plain = async () => (await t.store.sessions.create('alice', { now: at(9) })).id;
    const own = async () => (await t.store.sessions.create('bob', { now: at(9), perUser: true })).id;
    expect([await plain(), await plain()]).toEqual(['2026-11-21_1', '2026-11-21_2']);
    await t.store.sessions.delete('2026-11-21_2', 'alice');
    expect(await plain()).toBe('2026-11-21_3');
    await t.store.sessions.delete('2026-11-21_1', 'alice');
    await t.store.sessions.delete('2026-11-21_3', 'alice');
    expect(await plain()).toBe('2026-11-21_4');
    expect(await own()).toBe('bob~2026-11-21_1');
    await t.store.sessions.delete('bob~2026-11-21_1', 'bob');
    expect(await own()).toBe('bob~2026-11-21_2');
    // Another day starts from 1.
    expect((await t.store.sessions.create('alice', { now: at(9, 22) })).id).toBe('2026-11-22_1');
  });

  it('the store-wide numbers go on as before, beside the per-user ones', async () => {
    const plain = async (user: string) => (await t.store.sessions.create(user, { now: at(9) })).id;
    expect(await plain('alice')).toBe('2026-11-21_1');
    expect((await t.store.sessions.create('bob', { now: at(9), perUser: true })).id).toBe('bob~2026-11-21_1');
    expect(await plain('bob')).toBe('2026-11-21_2');
    expect(await plain('alice')).toBe('2026-11-21_3');
  });

  it("a user's session of a number is theirs alone: another user's of the same number is not reachable", async () => {
    const a = (await t.store.sessions.create('alice', { now: at(9), perUser: true })).id;
    const b = (await t.store.sessions.create('bob', { now: at(9), perUser: true })).id;
    await t.store.grants.set(a, 'alice', { enabled: ['web'], disabled: [] });
    await t.store.grants.set(b, 'bob', { enabled: ['notes'], disabled: [] });
    for (const call of [
      () => t.store.sessions.get(a, 'bob'),
      () => t.store.sessions.delete(a, 'bob'),
      () => t.store.grants.get(a, 'bob'),
      () => t.store.files.list(a, 'bob'),
    ])
      expect(await codeOf(call)).toBe('not-owner');
    // Its lease, grants and thread are its own: bob's turn does not wait on alice's.
    const lease = await t.store.leases.acquire(a, { waitMs: 0 });
    (await t.store.leases.acquire(b, { waitMs: 0 })).release();
    await lease.release();
    expect((await t.store.grants.get(b, 'bob')).enabled).toEqual(['notes']);
    await t.store.sessions.delete(a, 'alice');
    expect((await t.store.grants.get(b, 'bob')).enabled).toEqual(['notes']);
  });

  it('concurrent creates by one user, in several processes at once, never share a number', async () => {
    const script = `
      const { createInterface } = await import('node:readline');
      const [user, at, count] = process.argv.slice(2);
      console.log('ready');
      for await (const _ of createInterface({ input: process.stdin })) break;
      const made = () => store.sessions.create(user, { now: new Date(Number(at)), perUser: true });
      const ids = (await Promise.all(Array.from({ length: Number(count) }, made))).map((s) => s.id);
      await store.close();
      console.log(JSON.stringify({ ids }));
    `;
    const workers = [0, 1, 2].map(() =>
      spawnModule(t.env.dir, `${t.env.childOpen}\n${script}`, ['bob', String(at(9).getTime()), '6']),
    );
    children.push(...workers);
    await Promise.all(workers.map((w) => w.waitFor((line) => line === 'ready')));
    for (const w of workers) w.send('go');
    // This process too, on its own connections (PostgreSQL: a pool of them, so concurrent transactions).
    const here = Promise.all(
      Array.from({ length: 6 }, () => t.store.sessions.create('bob', { now: at(9), perUser: true })),
    );
    const results = await Promise.all(
      workers.map(async (w) => JSON.parse(await w.waitFor((line) => line.startsWith('{'))).ids as string[]),
    );
    const ids = [...results.flat(), ...(await here).map((s) => s.id)];
    expect(ids.sort((x, y) => x.localeCompare(y, 'en', { numeric: true }))).toEqual(
      Array.from({ length: 24 }, (_, i) => `bob~2026-11-21_${i + 1}`),
    );
  }, 60_000);

  describe('ids', () => {
    it.each(['bob~2026-11-21_1', 'a.b@example.org~2026-01-01_12', 'A-1_x~2026-12-31_3'])(
      'accepts %j',
      (id) => {
        expect(validateSessionId(id)).toBe(id);
      },
    );

    it.each([
      '~2026-01-01_1',
      'a..b~2026-01-01_1',
      'a/b~2026-01-01_1',
      '.bob~2026-01-01_1',
      'bob~bob~2026-01-01_1',
      'bob~2026-01-01_1~bob',
      `${'x'.repeat(65)}~2026-01-01_1`,
      'bob~2026-13-01_1',
      'bob~2026-01-01_0',
    ])('rejects %j', async (id) => {
      expect(await codeOf(() => validateSessionId(id))).toBe('invalid-id');
      expect(await codeOf(() => t.store.sessions.get(id, 'bob'))).toBe('invalid-id');
    });
  });
});
