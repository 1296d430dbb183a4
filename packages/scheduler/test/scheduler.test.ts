import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore, type SqliteStore } from '@birdie/store';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { type Firing, Scheduler, type SchedulerEvent, type Trigger } from '../src/index.js';
import { FakeClock } from './fake-clock.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function storeFile(): Promise<string> {
  const dir = await makeTempDir('birdie-scheduler-');
  cleanups.push(() => dir.cleanup());
  return join(dir.path, 'birdie.db');
}

function open(file: string): SqliteStore {
  const store = openStore({ file });
  cleanups.push(() => store.close());
  return store;
}

interface Harness {
  scheduler: Scheduler;
  runs: Firing[];
  events: SchedulerEvent[];
}

function harness(
  store: SqliteStore,
  clock?: FakeClock,
  run: (f: Firing) => Promise<void> = async () => undefined,
): Harness {
  const runs: Firing[] = [];
  const events: SchedulerEvent[] = [];
  const scheduler = new Scheduler({
    store,
    ...(clock ? { clock } : {}),
    run: async (f) => {
      runs.push(f);
      await run(f);
    },
    onEvent: (e) => events.push(e),
  });
  cleanups.push(() => scheduler.stop());
  return { scheduler, runs, events };
}

const iso = (d: Date) => d.toISOString();

describe('cron schedules on a controllable clock', () => {
  it('runs at 09:00 Berlin time across the daylight-saving change, each due time once', async () => {
    const store = open(await storeFile());
    const clock = new FakeClock(Date.parse('2026-03-27T12:00:00Z'));
    const h = harness(store, clock);
    const trigger: Trigger = {
      id: 'digest',
      schedule: '0 9 * * *',
      timezone: 'Europe/Berlin',
      prompt: 'Digest.',
    };
    await h.scheduler.update([trigger]);
    expect(iso(h.scheduler.next('digest')!)).toBe('2026-03-28T08:00:00.000Z');
    await clock.advanceTo(Date.parse('2026-03-31T00:00:00Z'), () => h.scheduler.idle());
    expect(h.runs.map((r) => [iso(r.dueAt), r.label, r.prompt, r.late])).toEqual([
      ['2026-03-28T08:00:00.000Z', 'schedule 0 9 * * * (Europe/Berlin)', 'Digest.', false],
      ['2026-03-29T07:00:00.000Z', 'schedule 0 9 * * * (Europe/Berlin)', 'Digest.', false],
      ['2026-03-30T07:00:00.000Z', 'schedule 0 9 * * * (Europe/Berlin)', 'Digest.', false],
    ]);
    expect(h.events.map((e) => e.type)).toEqual(Array(3).fill(['run-start', 'run-end']).flat());
  });

  it('a schedule no date matches (30 February) is reported as an invalid-trigger error, not left silent', async () => {
    const store = open(await storeFile());
    const clock = new FakeClock(Date.parse('2026-03-27T12:00:00Z'));
    const h = harness(store, clock);
    const trigger: Trigger = { id: 'never', schedule: '0 0 30 2 *', prompt: 'Never.' };
    await h.scheduler.update([trigger]);
    expect(h.scheduler.next('never')).toBeUndefined();
    expect(h.events).toEqual([
      {
        type: 'error',
        trigger,
        error: expect.objectContaining({
          code: 'invalid-trigger',
          message: 'schedule 0 0 30 2 * never comes due: no date matches it',
        }),
      },
    ]);
  });

  it('after downtime runs a missed schedule once, late; with catchUp: false skips it', async () => {
    const file = await storeFile();
    const clock = new FakeClock(Date.parse('2026-05-01T00:00:00Z'));
    const first = harness(open(file), clock);
    const trigger: Trigger = { id: 'hourly', schedule: '0 * * * *' };
    await first.scheduler.update([trigger]);
    await clock.advanceTo(Date.parse('2026-05-01T01:30:00Z'), () => first.scheduler.idle());
    expect(first.runs.map((r) => iso(r.dueAt))).toEqual(['2026-05-01T01:00:00.000Z']);
    await first.scheduler.stop();

    // Down for a day: 24 due times missed; the next process runs the newest one, once.
    clock.time = Date.parse('2026-05-02T01:30:00Z');
    const second = harness(open(file), clock);
    await second.scheduler.update([trigger]);
    await second.scheduler.idle();
    expect(second.runs.map((r) => [iso(r.dueAt), r.late])).toEqual([['2026-05-02T01:00:00.000Z', true]]);
    await second.scheduler.stop();

    clock.time = Date.parse('2026-05-03T01:30:00Z');
    const third = harness(open(file), clock);
    await third.scheduler.update([{ ...trigger, catchUp: false }]);
    await third.scheduler.idle();
    expect(third.runs).toEqual([]);
    expect(third.events).toEqual([
      expect.objectContaining({ type: 'skipped', reason: 'missed', dueAt: new Date('2026-05-03T01:00:00Z') }),
    ]);
    expect(iso(third.scheduler.next('hourly')!)).toBe('2026-05-03T02:00:00.000Z');
  });

  it('a new trigger does not catch up on times before it was first seen', async () => {
    const clock = new FakeClock(Date.parse('2026-05-01T00:30:00Z'));
    const h = harness(open(await storeFile()), clock);
    await h.scheduler.update([{ id: 'fresh', schedule: '0 * * * *' }]);
    await h.scheduler.idle();
    expect(h.runs).toEqual([]);
  });
});

describe('overlap', () => {
  async function slowRuns(overlap?: 'skip' | 'queue') {
    const clock = new FakeClock(0);
    const releases: Array<() => void> = [];
    const h = harness(open(await storeFile()), clock, () => new Promise<void>((done) => releases.push(done)));
    await h.scheduler.update([{ id: 'slow', every: 10, ...(overlap ? { overlap } : {}) }]);
    // Do not wait for the runs (they wait for us): only let the firing start.
    const tick = () => new Promise<void>((done) => setTimeout(done, 20));
    await clock.advanceTo(10_000, tick);
    await clock.advanceTo(20_000, tick);
    await clock.advanceTo(30_000, tick);
    return { h, releases, tick };
  }

  it('skips a run due while one is active, and logs it', async () => {
    const { h, releases } = await slowRuns();
    expect(h.runs.map((r) => r.dueAt.getTime())).toEqual([10_000]);
    expect(
      h.events
        .filter((e) => e.type === 'skipped')
        .map((e) => [e.type === 'skipped' && e.reason, e.type === 'skipped' && e.dueAt.getTime()]),
    ).toEqual([
      ['overlap', 20_000],
      ['overlap', 30_000],
    ]);
    for (const done of releases) done();
    await h.scheduler.idle();
  });

  it('with overlap: queue runs one queued run after the active one', async () => {
    const { h, releases, tick } = await slowRuns('queue');
    expect(h.events.filter((e) => e.type === 'queued').length).toBe(1);
    releases.shift()!();
    await tick();
    expect(h.runs.map((r) => r.dueAt.getTime())).toEqual([10_000, 20_000]);
    releases.shift()!();
    await h.scheduler.idle();
  });
});

describe('several processes on one database', () => {
  it('two schedulers on two store handles run each due time exactly once', async () => {
    const file = await storeFile();
    const clock = new FakeClock(0);
    const a = harness(open(file), clock);
    const b = harness(open(file), clock);
    const trigger: Trigger = { id: 'tick', every: 1 };
    await a.scheduler.update([trigger]);
    await b.scheduler.update([trigger]);
    await clock.advanceTo(20_000, async () => {
      await a.scheduler.idle();
      await b.scheduler.idle();
    });
    const due = [...a.runs, ...b.runs].map((r) => r.dueAt.getTime()).sort((x, y) => x - y);
    expect(due).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 1000));
    expect(a.events.concat(b.events).filter((e) => e.type === 'skipped').length).toBe(20);
  });
});

describe('real time and real files', () => {
  it('every: 1s runs on its one-second grid', async () => {
    const runs: Firing[] = [];
    let seen!: () => void;
    const third = new Promise<void>((done) => {
      seen = done;
    });
    const h2 = new Scheduler({
      store: open(await storeFile()),
      run: async (f) => {
        runs.push(f);
        if (runs.length === 3) seen();
      },
    });
    cleanups.push(() => h2.stop());
    await h2.update([{ id: 'second', every: 1 }]);
    await third;
    const [r1, r2, r3] = runs.map((r) => r.dueAt.getTime());
    expect([r2! - r1!, r3! - r2!]).toEqual([1000, 1000]);
    expect(runs.every((r) => r.label === 'every 1s' && !r.late)).toBe(true);
  });

  it('watch: one run per quiet spell with the changed paths that match the globs', async () => {
    const dir = await makeTempDir('birdie-watch-');
    cleanups.push(() => dir.cleanup());
    mkdirSync(join(dir.path, 'docs', 'deep'), { recursive: true });
    writeFileSync(join(dir.path, 'docs', 'old.md'), 'old');
    let fired!: (f: Firing) => void;
    const first = new Promise<Firing>((done) => {
      fired = done;
    });
    const scheduler = new Scheduler({ store: open(await storeFile()), run: async (f) => fired(f) });
    cleanups.push(() => scheduler.stop());
    await scheduler.update([
      { id: 'docs', watch: ['docs/**/*.md', 'notes.txt'], root: dir.path, debounce: 0.3, prompt: 'Review.' },
    ]);
    writeFileSync(join(dir.path, 'docs', 'ignored.txt'), 'x');
    writeFileSync(join(dir.path, 'docs', 'deep', 'new.md'), 'new');
    writeFileSync(join(dir.path, 'docs', 'old.md'), 'changed');
    writeFileSync(join(dir.path, 'notes.txt'), 'n');
    const firing = await first;
    expect(firing.kind).toBe('watch');
    expect(firing.paths).toEqual(['docs/deep/new.md', 'docs/old.md', 'notes.txt']);
    expect(firing.prompt).toBe('Review.\n\nChanged files:\n- docs/deep/new.md\n- docs/old.md\n- notes.txt');
  });
});

describe('stop', () => {
  it('lets an active run finish within the grace time, else aborts it and waits for it', async () => {
    const clock = new FakeClock(0);
    let aborted = false;
    const h = harness(
      open(await storeFile()),
      clock,
      (f) =>
        new Promise<void>((done) => {
          f.signal.addEventListener('abort', () => {
            aborted = true;
            done();
          });
        }),
    );
    await h.scheduler.update([{ id: 'long', every: 5 }]);
    await clock.advanceTo(5000, () => new Promise((d) => setTimeout(d, 20)));
    expect(h.scheduler.running).toBe(1);
    const stopping = h.scheduler.stop({ graceMs: 1000 });
    await new Promise((d) => setTimeout(d, 20));
    expect(aborted).toBe(false);
    await clock.advanceTo(6000, () => new Promise((d) => setTimeout(d, 20)));
    await stopping;
    expect(aborted).toBe(true);
    expect(h.events.at(-1)).toMatchObject({ type: 'run-end' });
  });

  it('aborts with a reason whose stopNote says the scheduler stopped (a tool it cuts off is not "cancelled by the user")', async () => {
    const clock = new FakeClock(0);
    let reason: unknown;
    const h = harness(
      open(await storeFile()),
      clock,
      (f) =>
        new Promise<void>((done) => {
          f.signal.addEventListener('abort', () => {
            reason = f.signal.reason;
            done();
          });
        }),
    );
    await h.scheduler.update([{ id: 'long', every: 5 }]);
    await clock.advanceTo(5000, () => new Promise((d) => setTimeout(d, 20)));
    await h.scheduler.stop({ graceMs: 0 });
    expect(reason).toMatchObject({
      message: 'birdie start is stopping',
      stopNote: 'Stopped because the scheduler (birdie start) stopped',
    });
  });
});
