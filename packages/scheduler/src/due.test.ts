import { describe, expect, it } from 'vitest';
import { dueTimes, missedSince, timingLabel } from './due.js';

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe('dueTimes', () => {
  it('reads a cron schedule in its time zone across the spring daylight-saving change', () => {
    const calc = dueTimes({ schedule: '0 9 * * *', timezone: 'Europe/Berlin' });
    const times: string[] = [];
    let at = Date.parse('2026-03-27T12:00:00Z');
    for (let i = 0; i < 4; i++) {
      at = calc.next(at)!;
      times.push(iso(at)!);
    }
    // 09:00 CET is 08:00Z; from 29 March 09:00 CEST is 07:00Z.
    expect(times).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
    ]);
  });

  it('an `every` grid counts from the given time; `at` is due once', () => {
    expect(dueTimes({ every: 30 }).next(1000)).toBe(31_000);
    const at = dueTimes({ at: new Date(5000) });
    expect(at.next(1000)).toBe(5000);
    expect(at.next(5000)).toBeUndefined();
  });

  it('refuses a schedule croner cannot read', () => {
    expect(() => dueTimes({ schedule: '61 * * * *' })).toThrow(/not a cron schedule/);
    expect(() => dueTimes({})).toThrow(/needs schedule, every or at/);
  });
});

describe('missedSince', () => {
  it('finds the newest missed due time and how many were missed', () => {
    expect(missedSince(dueTimes({ every: 10 }), 0, 35_000)).toEqual({ newest: 30_000, count: 3 });
    expect(missedSince(dueTimes({ every: 10 }), 0, 9_000)).toEqual({ count: 0 });
  });
});

describe('timingLabel', () => {
  it('names each timing as the run log shows it', () => {
    expect(timingLabel({ every: 90 })).toBe('every 90s');
    expect(timingLabel({ every: 900 })).toBe('every 15m');
    expect(timingLabel({ schedule: '0 9 * * *', timezone: 'UTC' })).toBe('schedule 0 9 * * * (UTC)');
  });
});
