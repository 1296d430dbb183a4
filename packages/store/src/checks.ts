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

/** A required object argument (`run`, `progress`): null, a string, an array or nothing is the caller's mistake. */
export function checkObject<T>(value: T, name: string): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new StoreError('invalid-argument', `${name} must be an object`);
  }
  return value;
}

/** An optional options argument: absent (undefined) is none; anything else must be an object. */
export function checkOptions<T extends object>(value: T | undefined, name = 'opts'): Partial<T> {
  return value === undefined ? {} : checkObject(value, name);
}

/** A Date that holds a time (`new Date(NaN)` does not). */
export function checkDate(value: unknown, name: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new StoreError('invalid-argument', `${name} must be a valid Date`);
  }
  return value;
}
