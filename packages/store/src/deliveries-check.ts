import { checkKey } from './checks.js';
import { StoreError } from './errors.js';

const MAX_KEYS = 8;
const MIN_TTL_MS = 1000;
const MAX_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * A delivery claim's keys (1–8, each 1–200 characters without NUL; sorted and without repeats, so that two claims
 * sharing keys lock them in one order) and its lifetime.
 */
export function checkDeliveryClaim(keys: unknown, ttlMs: unknown): { keys: string[]; ttlMs: number } {
  const checked = checkDeliveryKeys(keys);
  if (!Number.isSafeInteger(ttlMs) || (ttlMs as number) < MIN_TTL_MS || (ttlMs as number) > MAX_TTL_MS) {
    throw new StoreError('invalid-argument', 'a delivery claim lasts from 1 second to 30 days (ttlMs)');
  }
  return { keys: checked, ttlMs: ttlMs as number };
}

/** A delivery's keys (1–8, each 1–200 characters without NUL), sorted and without repeats. */
export function checkDeliveryKeys(keys: unknown): string[] {
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_KEYS) {
    throw new StoreError('invalid-argument', `a delivery claim takes 1 to ${MAX_KEYS} keys`);
  }
  return [...new Set(keys.map((k) => checkKey(k, 'delivery key', 200)))].sort();
}
