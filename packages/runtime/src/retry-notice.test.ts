import { describe, expect, it } from 'vitest';
import { type RetryNotice, retryCountdown, retryLine } from './retry-notice.js';

const notice: RetryNotice = { vendor: 'openai', status: 429, attempt: 2, of: 3, delayMs: 4000 };

describe('retry lines', () => {
  it('says who waits, why, how long and which attempt; a part of a second counts as one', () => {
    expect(retryLine(notice)).toBe('openai is rate limiting (HTTP 429): retrying in 4 s, attempt 2 of 3');
    expect(retryLine({ ...notice, status: 503, delayMs: 1400 })).toBe(
      'openai failed (HTTP 503): retrying in 2 s, attempt 2 of 3',
    );
    expect(retryLine({ ...notice, delayMs: 0 })).toContain('retrying in 1 s');
  });

  it('counts the seconds down from when the notice came, never below 1 s', () => {
    let now = 10_000;
    const line = retryCountdown(notice, () => now);
    const seconds = () => /retrying in (\d+) s/.exec(line())![1];
    expect(seconds()).toBe('4');
    now += 999;
    expect(seconds()).toBe('4');
    now += 1;
    expect(seconds()).toBe('3');
    now += 2500;
    expect(seconds()).toBe('1');
    now += 5000;
    expect(seconds()).toBe('1');
  });
});
