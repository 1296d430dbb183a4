import { describe, expect, it } from 'vitest';
import { isRetryableStatus, retryDelayMs } from './http-retry.js';

describe('retry policy', () => {
  it('retries 429 and 5xx only', () => {
    expect([200, 400, 404, 429, 500, 503].map(isRetryableStatus)).toEqual([
      false,
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it('reads Retry-After as seconds or as an HTTP date, else backs off', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryDelayMs('2', 0, now)).toBe(2_000);
    expect(retryDelayMs('Thu, 01 Jan 2026 00:00:05 GMT', 0, now)).toBe(5_000);
    expect(retryDelayMs('Wed, 31 Dec 2025 00:00:00 GMT', 0, now)).toBe(0);
    expect(retryDelayMs(null, 0, now)).toBe(200);
    expect(retryDelayMs('soon', 1, now)).toBe(400);
    expect(retryDelayMs(null, 10, now)).toBe(2_000);
  });
});
