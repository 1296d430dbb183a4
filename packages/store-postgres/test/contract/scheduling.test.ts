import { type Child, spawnModule } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { backends } from '../backends.js';
import { codeOf, rejection, useBackend } from './harness.js';

// The scheduler's side of the store on every back end: trigger leases, claimed due times, scheduled tasks.
describe.each(backends)('$name', (backend) => {
  const t = useBackend(backend);
  const children: Child[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) {
      c.child.kill('SIGKILL');
      await c.exited;
    }
  });

  describe('trigger leases and claims', () => {
    it('a trigger key is leased like a session: one holder, another waits or is refused', async () => {
      const lease = await t.store.leases.acquire('trigger:alice/digest');
      expect(lease.sessionId).toBe('trigger:alice/digest');
      const other = await t.env.open();
      expect((await rejection(other.leases.acquire('trigger:alice/digest'))).code).toBe('session-busy');
      expect((await other.leases.holder('trigger:alice/digest'))?.pid).toBe(process.pid);
      await lease.release();
      await (await other.leases.acquire('trigger:alice/digest')).release();
      for (const bad of ['trigger:', 'trigger:a b', 'trigger:a\nb', `trigger:${'x'.repeat(201)}`]) {
        expect(await codeOf(() => t.store.leases.acquire(bad)), bad).toBe('invalid-id');
      }
    });

    it('claims each due time once, only under the trigger lease, and never an older one', async () => {
      const key = 'alice/digest:every';
      const leaseKey = 'trigger:alice/digest';
      expect(await t.store.triggers.last(key)).toBeUndefined();
      expect(await codeOf(() => t.store.triggers.claim(key, new Date(1000), leaseKey))).toBe('lease-lost');
      const lease = await t.store.leases.acquire(leaseKey);
      expect(await t.store.triggers.claim(key, new Date(1000), leaseKey)).toBe(true);
      expect(await t.store.triggers.claim(key, new Date(1000), leaseKey)).toBe(false);
      expect(await t.store.triggers.claim(key, new Date(500), leaseKey)).toBe(false);
      expect(await t.store.triggers.claim(key, new Date(2000), leaseKey)).toBe(true);
      expect(await t.store.triggers.last(key)).toEqual(new Date(2000));
      // Arming keeps what is there; a new trigger starts from the time it was armed.
      expect(await t.store.triggers.arm(key, new Date(9000))).toEqual(new Date(2000));
      expect(await t.store.triggers.arm('alice/digest:watch', new Date(9000))).toEqual(new Date(9000));
      await lease.release();
      expect(await codeOf(() => t.store.triggers.claim(key, new Date(3000), leaseKey))).toBe('lease-lost');
      expect(await codeOf(() => t.store.triggers.claim(key, new Date(Number.NaN), leaseKey))).toBe(
        'invalid-argument',
      );
    });

    it('two processes racing for the same due times claim each one exactly once', async () => {
      const script = `${t.env.childOpen}
        const won = [];
        for (let due = 1; due <= 40; due++) {
          let lease;
          try { lease = await store.leases.acquire('trigger:race', { waitMs: 2000 }); } catch { continue; }
          try { if (await store.triggers.claim('race:every', new Date(due * 1000), 'trigger:race')) won.push(due); }
          finally { await lease.release(); }
        }
        console.log(JSON.stringify(won));
        await store.close();
      `;
      const racers = [spawnModule(t.env.dir, script), spawnModule(t.env.dir, script)];
      children.push(...racers);
      const won = await Promise.all(racers.map((c) => c.waitFor((l) => l.startsWith('['))));
      const all = won.flatMap((line) => JSON.parse(line) as number[]).sort((a, b) => a - b);
      expect(all).toEqual([...new Set(all)]);
      expect(all.length).toBeGreaterThan(0);
      expect(await t.store.triggers.last('race:every')).toEqual(new Date(all.at(-1)! * 1000));
    });
  });

  describe('tasks', () => {
    it('are created, listed, cancelled and finished per user', async () => {
      const a = await t.store.tasks.create({
        userId: 'alice',
        prompt: 'summarise the inbox',
        schedule: '0 9 * * *',
        timezone: 'Europe/Berlin',
        agent: 'digest',
      });
      const b = await t.store.tasks.create({ userId: 'alice', prompt: 'stretch', every: 1800 });
      const at = new Date(Date.now() + 3_600_000);
      const c = await t.store.tasks.create({ userId: 'alice', prompt: 'call Bob', at, createdByRun: 7 });
      await t.store.tasks.create({ userId: 'bob', prompt: 'not alice’s', every: 60 });
      expect(a).toMatchObject({
        userId: 'alice',
        agent: 'digest',
        schedule: '0 9 * * *',
        timezone: 'Europe/Berlin',
        status: 'active',
      });
      expect(b.every).toBe(1800);
      expect(c).toMatchObject({ at, createdByRun: 7 });
      expect((await t.store.tasks.list('alice')).map((x) => x.id)).toEqual([a.id, b.id, c.id]);

      expect(await t.store.tasks.cancel(b.id, 'bob')).toBe(false);
      expect(await t.store.tasks.cancel(b.id, 'alice')).toBe(true);
      expect(await t.store.tasks.cancel(b.id, 'alice')).toBe(false);
      await t.store.tasks.finish(c.id);
      expect((await t.store.tasks.list('alice')).map((x) => x.id)).toEqual([a.id]);
      const all = await t.store.tasks.list('alice', { all: true });
      expect(all.map((x) => [x.id, x.status])).toEqual([
        [a.id, 'active'],
        [b.id, 'cancelled'],
        [c.id, 'done'],
      ]);
      expect(all[1]!.endedAt).toBeInstanceOf(Date);
      expect(await t.store.tasks.get(a.id, 'bob')).toBeUndefined();
      expect((await t.store.tasks.get(a.id, 'alice'))?.prompt).toBe('summarise the inbox');
    });

    it("listActive: every user's active tasks, oldest first (birdie serve runs its users')", async () => {
      const a = await t.store.tasks.create({ userId: 'alice', prompt: 'one', every: 60 });
      const b = await t.store.tasks.create({ userId: 'bob', prompt: 'two', every: 60 });
      const c = await t.store.tasks.create({ userId: 'alice', prompt: 'three', every: 60 });
      expect(await t.store.tasks.cancel(c.id, 'alice')).toBe(true);
      expect((await t.store.tasks.listActive()).map((x) => [x.id, x.userId])).toEqual([
        [a.id, 'alice'],
        [b.id, 'bob'],
      ]);
    });

    it('keep the grants of the session that scheduled them; a task without grants has none', async () => {
      const grants = {
        enabled: ['filesystem'],
        disabled: ['shell'],
        sources: { filesystem: 'bundled:/s/SKILL.md' },
      };
      const kept = await t.store.tasks.create({ userId: 'alice', prompt: 'tick', every: 60, grants });
      const bare = await t.store.tasks.create({ userId: 'alice', prompt: 'tock', every: 60 });
      expect(kept.grants).toEqual(grants);
      expect((await t.store.tasks.get(kept.id, 'alice'))?.grants).toEqual(grants);
      expect((await t.store.tasks.get(bare.id, 'alice'))?.grants).toBeUndefined();
      const bad = { userId: 'alice', prompt: 'x', every: 60, grants: { enabled: 'shell', disabled: [] } };
      expect(await codeOf(() => t.store.tasks.create(bad as never))).toBe('invalid-argument');
    });

    it('a one-time task whose run failed is finished `failed`, with the error; a finished one stays as it ended', async () => {
      const at = new Date(Date.now() + 3_600_000);
      const ok = await t.store.tasks.create({ userId: 'alice', prompt: 'ok', at });
      const bad = await t.store.tasks.create({ userId: 'alice', prompt: 'bad', at });
      await t.store.tasks.finish(ok.id);
      await t.store.tasks.finish(bad.id, { error: 'model call failed: no scripted reply' });
      await t.store.tasks.finish(bad.id);
      expect(await t.store.tasks.list('alice')).toEqual([]);
      const all = await t.store.tasks.list('alice', { all: true });
      expect(all.map((x) => [x.id, x.status, x.error])).toEqual([
        [ok.id, 'done', undefined],
        [bad.id, 'failed', 'model call failed: no scripted reply'],
      ]);
      expect(all[1]!.endedAt).toBeInstanceOf(Date);
      expect(await t.store.tasks.cancel(bad.id, 'alice')).toBe(false);
    });

    it('keep the session that scheduled them after that session is deleted', async () => {
      const session = await t.store.sessions.create('alice');
      const task = await t.store.tasks.create({
        userId: 'alice',
        prompt: 'hourly',
        every: 3600,
        originSession: session.id,
      });
      expect(task.originSession).toBe(session.id);
      await t.store.sessions.delete(session.id, 'alice');
      expect((await t.store.tasks.get(task.id, 'alice'))?.originSession).toBe(session.id);
      expect((await t.store.tasks.listActive()).find((x) => x.id === task.id)?.originSession).toBe(session.id);
      const plain = await t.store.tasks.create({ userId: 'alice', prompt: 'plain', every: 60 });
      expect(plain).not.toHaveProperty('originSession');
      expect(
        await codeOf(() => t.store.tasks.create({ userId: 'alice', prompt: 'x', every: 60, originSession: 'a b' })),
      ).toBe('invalid-id');
    });

    it('take exactly one of schedule, every and at', async () => {
      for (const bad of [
        { userId: 'alice', prompt: 'x' },
        { userId: 'alice', prompt: 'x', every: 60, schedule: '* * * * *' },
        { userId: 'alice', prompt: '', every: 60 },
        { userId: 'alice', prompt: 'x', every: 0.5 },
        { userId: 'alice', prompt: 'x', at: new Date(Number.NaN) },
        { userId: 'alice', prompt: 'x', every: 60, timezone: 'UTC' },
      ]) {
        expect(await codeOf(() => t.store.tasks.create(bad)), JSON.stringify(bad)).toBe('invalid-argument');
      }
      expect(await codeOf(() => t.store.tasks.create({ userId: '../x', prompt: 'x', every: 60 }))).toBe(
        'invalid-id',
      );
    });
  });
});
