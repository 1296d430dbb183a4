import { checkKey, checkObject } from './checks.js';
import { StoreError } from './errors.js';
import { MAX_ADMISSION_LIMIT } from './limits.js';

const MIN_WINDOW_MS = 1000;
const MAX_WINDOW_MS = 24 * 60 * 60 * 1000;

/** An admission's key (1–200 characters without NUL), its limit (1–100,000), window (1 s to 1 day) and time (ms). */
export function checkAdmission(
  key: unknown,
  opts: unknown,
): { key: string; limit: number; windowMs: number; now: number } {
  const checked = checkKey(key, 'admission key', 200);
  const { limit, windowMs, now } = checkObject(opts, 'opts') as {
    limit?: unknown;
    windowMs?: unknown;
    now?: unknown;
  };
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_ADMISSION_LIMIT) {
    throw new StoreError(
      'invalid-argument',
      `an admission limit is a whole number from 1 to ${MAX_ADMISSION_LIMIT}`,
    );
  }
  if (
    !Number.isSafeInteger(windowMs) ||
    (windowMs as number) < MIN_WINDOW_MS ||
    (windowMs as number) > MAX_WINDOW_MS
  ) {
    throw new StoreError('invalid-argument', 'an admission window lasts from 1 second to 1 day (windowMs)');
  }
  if (now !== undefined && !(now instanceof Date && Number.isFinite(now.getTime()))) {
    throw new StoreError('invalid-argument', 'an admission time (now) must be a valid Date');
  }
  return {
    key: checked,
    limit: limit as number,
    windowMs: windowMs as number,
    now: now === undefined ? Date.now() : (now as Date).getTime(),
  };
}

/** An admission to withdraw: its key, as for `checkAdmission`, and its id. */
export function checkAdmissionId(key: unknown, id: unknown): { key: string; id: number } {
  const checked = checkKey(key, 'admission key', 200);
  if (!Number.isSafeInteger(id) || (id as number) < 1) {
    throw new StoreError('invalid-argument', 'an admission id is a positive whole number');
  }
  return { key: checked, id: id as number };
}
