import { describe, expect, it } from 'vitest';
import { cronProblem, knownTimeZone, parseDuration, watchProblem } from './agent-triggers.js';

describe('parseDuration', () => {
  it('reads seconds and unit sequences', () => {
    expect(parseDuration(30)).toBe(30);
    expect(parseDuration('30s')).toBe(30);
    expect(parseDuration('15m')).toBe(900);
    expect(parseDuration('2h')).toBe(7200);
    expect(parseDuration('1h30m')).toBe(5400);
    expect(parseDuration('500ms')).toBe(0.5);
    expect(parseDuration('1d')).toBe(86_400);
    expect(parseDuration(' 2H ')).toBe(7200);
  });

  it('refuses what is not a duration', () => {
    for (const bad of ['', 'soon', '10', '5 minutes', '-3s', 'h', -1, Number.NaN, true, null, ['1s']]) {
      expect(parseDuration(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('cron, time zones, watch paths', () => {
  it('says what is wrong with a cron expression', () => {
    expect(cronProblem('0 9 * * 1-5')).toBeUndefined();
    expect(cronProblem('*/5 * * * * *')).toBeUndefined();
    expect(cronProblem('@hourly')).toBeUndefined();
    expect(cronProblem('61 * * * *')).toBe('Invalid value for minute: 61');
    expect(cronProblem('* * *')).toMatch(/five, six, or seven/);
    // Valid fields, but no date has them: croner accepts these and never fires.
    expect(cronProblem('0 0 30 2 *')).toBe('it never comes due (no date matches it)');
    expect(cronProblem('0 0 31 4,6,9,11 *')).toBe('it never comes due (no date matches it)');
    expect(cronProblem('0 0 29 2 *')).toBeUndefined();
  });

  it('knows IANA zones', () => {
    expect(knownTimeZone('Europe/Berlin')).toBe(true);
    expect(knownTimeZone('UTC')).toBe(true);
    expect(knownTimeZone('Mars/Olympus_Mons')).toBe(false);
  });

  it('keeps watch paths inside the project', () => {
    expect(watchProblem('src/**/*.ts')).toBeUndefined();
    expect(watchProblem('notes.md')).toBeUndefined();
    expect(watchProblem('/etc/passwd')).toMatch(/absolute/);
    expect(watchProblem('~/notes')).toMatch(/absolute/);
    expect(watchProblem('C:\\x')).toMatch(/absolute/);
    expect(watchProblem('a/../../b')).toMatch(/\.\./);
    expect(watchProblem('  ')).toBe('an empty path');
  });
});
