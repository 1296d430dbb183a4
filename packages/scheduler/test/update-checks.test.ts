import { join } from 'node:path';
import { openStore, type SqliteStore } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isSchedulerError,
  Scheduler,
  type SchedulerEvent,
  type Trigger,
  type TriggerStore,
} from '../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function scheduler(
  store?: (store: SqliteStore) => TriggerStore,
): Promise<{ s: Scheduler; events: SchedulerEvent[] }> {
  const dir = await makeTempDir('birdie-scheduler-');
  cleanups.push(() => dir.cleanup());
  const sqlite = openStore({ file: join(dir.path, 'birdie.db') });
  cleanups.push(() => sqlite.close());
  const events: SchedulerEvent[] = [];
  const s = new Scheduler({
    store: store ? store(sqlite) : sqlite,
    run: async () => undefined,
    onEvent: (event) => events.push(event),
  });
  cleanups.push(() => s.stop());
  return { s, events };
}

const errorsOf = (events: SchedulerEvent[], id: string) =>
  events.flatMap((e) => (e.type === 'error' && e.trigger.id === id ? [e.error] : []));

describe('update leaves out a trigger that cannot run, with invalid-trigger (README "Errors")', () => {
  it.each([
    ['no timing at all', { id: 'b', prompt: 'x' }, /schedule, every, at or watch/],
    [
      'an unknown time zone',
      { id: 'e', schedule: '0 9 * * *', timezone: 'Mars/Olympus', prompt: 'x' },
      /Mars\/Olympus/,
    ],
    ['not a cron expression', { id: 'c', schedule: 'every morning', prompt: 'x' }, /every morning/],
    ['an invalid at date', { id: 'i', at: new Date('nope'), prompt: 'x' }, /at must be a valid date/],
  ] as Array<[string, Trigger, RegExp]>)('%s', async (_label, trigger, message) => {
    const { s, events } = await scheduler();
    const { refused } = await s.update([trigger]);
    expect(refused.map((r) => r.trigger.id)).toEqual([trigger.id]);
    const [error] = refused.map((r) => r.error);
    expect(isSchedulerError(error) && error.code).toBe('invalid-trigger');
    expect((error as Error).message).toMatch(message);
    expect(errorsOf(events, trigger.id)).toEqual([error]);
  });

  // The defect: one bad trigger (a task row stored by another writer) refused the whole update, so `birdie start` ran
  // nothing at all. Now it is left out, said once per definition, and runs once fixed.
  it('a bad trigger does not stop the others; it is said once while unchanged and starts once fixed', async () => {
    const { s, events } = await scheduler();
    const ok: Trigger = { id: 'ok', every: 60, prompt: 'x' };
    const bad: Trigger = { id: 'bad', schedule: 'every morning', prompt: 'x' };
    const first = await s.update([ok, bad]);
    expect(first.refused.map((r) => r.trigger.id)).toEqual(['bad']);
    const before = s.next('ok');
    expect(before).toBeInstanceOf(Date);
    expect(s.next('bad')).toBeUndefined();

    const again = await s.update([ok, bad]);
    expect(again.refused.map((r) => r.trigger.id)).toEqual(['bad']);
    expect(s.next('ok')).toEqual(before);
    expect(errorsOf(events, 'bad')).toHaveLength(1);

    // Changed but still bad: said again, with the new reason.
    await s.update([ok, { ...bad, schedule: '0 9 * * *', timezone: 'Mars/Olympus' }]);
    expect(errorsOf(events, 'bad')).toHaveLength(2);
    expect((errorsOf(events, 'bad')[1] as Error).message).toMatch(/Mars\/Olympus/);

    const fixed = await s.update([ok, { ...bad, schedule: '0 9 * * *', timezone: undefined }]);
    expect(fixed.refused).toEqual([]);
    expect(s.next('bad')).toBeInstanceOf(Date);
    expect(s.next('ok')).toEqual(before);
    expect(errorsOf(events, 'bad')).toHaveLength(2);
  });

  it('a trigger removed and given again while still bad is said again', async () => {
    const { s, events } = await scheduler();
    const bad: Trigger = { id: 'bad', every: -1, prompt: 'x' };
    await s.update([bad]);
    await s.update([]);
    await s.update([bad]);
    expect(errorsOf(events, 'bad')).toHaveLength(2);
  });

  it('a trigger whose start fails (the store) is left out and started again by the next update', async () => {
    let failing = true;
    const { s, events } = await scheduler((store) => ({
      leases: store.leases,
      triggers: {
        arm: (key, at) =>
          failing && key.startsWith('flaky:')
            ? Promise.reject(new Error('database gone'))
            : store.triggers.arm(key, at),
        claim: (key, dueAt, lease) => store.triggers.claim(key, dueAt, lease),
      },
    }));
    const ok: Trigger = { id: 'ok', every: 60, prompt: 'x' };
    const flaky: Trigger = { id: 'flaky', every: 60, prompt: 'x' };
    const later: Trigger = { id: 'later', every: 60, prompt: 'x' };
    const first = await s.update([ok, flaky, later]);
    expect(first.refused.map((r) => [r.trigger.id, (r.error as Error).message])).toEqual([
      ['flaky', 'database gone'],
    ]);
    expect(s.next('ok')).toBeInstanceOf(Date);
    expect(s.next('later')).toBeInstanceOf(Date);
    expect(s.next('flaky')).toBeUndefined();
    expect(errorsOf(events, 'flaky').map((e) => (e as Error).message)).toEqual(['database gone']);
    failing = false;
    expect((await s.update([ok, flaky, later])).refused).toEqual([]);
    expect(s.next('flaky')).toBeInstanceOf(Date);
  });

  it('update after stop is refused with stopped', async () => {
    const { s } = await scheduler();
    await s.stop();
    const error = await s.update([]).then(
      () => 'accepted',
      (e: unknown) => e,
    );
    expect(isSchedulerError(error, 'stopped')).toBe(true);
  });
});
