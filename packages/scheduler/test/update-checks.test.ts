import { join } from 'node:path';
import { openStore } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { isSchedulerError, Scheduler, type Trigger } from '../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function scheduler(): Promise<Scheduler> {
  const dir = await makeTempDir('birdie-scheduler-');
  cleanups.push(() => dir.cleanup());
  const store = openStore({ file: join(dir.path, 'birdie.db') });
  cleanups.push(() => store.close());
  const s = new Scheduler({ store, run: async () => undefined });
  cleanups.push(() => s.stop());
  return s;
}

async function refusal(s: Scheduler, triggers: Trigger[]): Promise<unknown> {
  return s.update(triggers).then(
    () => 'accepted',
    (error: unknown) => error,
  );
}

describe('update refuses a trigger that cannot run with invalid-trigger (README "Errors")', () => {
  it.each([
    ['no timing at all', { id: 'b', prompt: 'x' }, /schedule, every, at or watch/],
    [
      'an unknown time zone',
      { id: 'e', schedule: '0 9 * * *', timezone: 'Mars/Olympus', prompt: 'x' },
      /Mars\/Olympus/,
    ],
    ['an invalid at date', { id: 'i', at: new Date('nope'), prompt: 'x' }, /at must be a valid date/],
  ] as Array<[string, Trigger, RegExp]>)('%s', async (_label, trigger, message) => {
    const s = await scheduler();
    const error = await refusal(s, [trigger]);
    expect(isSchedulerError(error) && error.code).toBe('invalid-trigger');
    expect((error as Error).message).toMatch(message);
  });

  it('a bad trigger refuses the whole update before anything changes, so the good ones stay as they were', async () => {
    const s = await scheduler();
    await s.update([{ id: 'ok', every: 60, prompt: 'x' }]);
    const before = s.next('ok');
    expect(before).toBeInstanceOf(Date);
    const error = await refusal(s, [
      { id: 'ok', every: 60, prompt: 'x' },
      { id: 'e2', schedule: '0 9 * * *', timezone: 'Mars/Olympus', prompt: 'x' },
    ]);
    expect(isSchedulerError(error) && error.code).toBe('invalid-trigger');
    expect(s.next('ok')).toEqual(before);
    expect(s.next('e2')).toBeUndefined();
  });
});
