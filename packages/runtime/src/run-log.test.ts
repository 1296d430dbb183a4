import { describe, expect, it } from 'vitest';
import { isRuntimeError } from './errors.js';
import { parseSince, runId } from './run-log.js';

describe('run-log filters', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');

  it('reads --since as a duration ago or an ISO date/time', () => {
    expect(parseSince('30m', now).toISOString()).toBe('2026-11-29T11:30:00.000Z');
    expect(parseSince('1.5h', now).toISOString()).toBe('2026-11-29T10:30:00.000Z');
    expect(parseSince('2d', now).toISOString()).toBe('2026-11-27T12:00:00.000Z');
    expect(parseSince('2026-11-24', now).toISOString()).toBe('2026-11-24T00:00:00.000Z');
  });

  it('refuses anything else as a usage error naming both shapes', () => {
    for (const raw of ['yesterday', '30', '2026-13-45']) {
      const error = (() => {
        try {
          parseSince(raw, now);
        } catch (e) {
          return e;
        }
      })();
      expect(isRuntimeError(error) && error.code).toBe('usage');
      expect((error as Error).message).toContain(`got "${raw}"`);
    }
  });

  it('refuses a date the calendar does not have instead of rolling it over', () => {
    expect(() => parseSince('2026-02-29', now)).toThrow(/got "2026-02-29" \(February 2026 has no day 29\)/);
    expect(() => parseSince('2026-04-31T09:00', now)).toThrow(/April 2026 has no day 31/);
    expect(parseSince('2028-02-29T09:00Z', now).toISOString()).toBe('2028-02-29T09:00:00.000Z');
  });

  it('takes run numbers only', () => {
    expect(runId('42')).toBe(42);
    expect(() => runId('042')).toThrow('RUN_ID must be a run number');
    expect(() => runId('x')).toThrow('RUN_ID must be a run number');
  });
});
