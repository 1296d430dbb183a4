import { StoreError } from './errors.js';

export const MAX_TEXT = 4000;

export function checkCount(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw new StoreError('invalid-argument', `${name} must be a non-negative integer`);
  }
  return value as number;
}

/** A non-empty string; longer ones are cut to `max` characters with an ellipsis. */
export function checkText(value: unknown, field: string, max = MAX_TEXT): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new StoreError('invalid-argument', `${field} must be a non-empty string`);
  }
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

/** A non-empty string of at most `max` characters without NUL, kept exactly (ids, names, keys). */
export function checkKey(value: unknown, field: string, max = 512): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || value.includes('\0')) {
    throw new StoreError(
      'invalid-argument',
      `${field} must be a non-empty string of at most ${max} characters without NUL`,
    );
  }
  return value;
}
