import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { decimalNumber } from './decimal.js';

/** The range a whole-number flag must be in, and its value when not given. */
export interface WholeNumberRange {
  fallback: number;
  min: number;
  /** No upper bound when absent. */
  max?: number;
  /** The flag as the user typed it, in the error (default `--NAME`; `-n` for a short one). */
  label?: string;
}

/**
 * A whole-number flag (`--port`, `--rate-limit`, `-n`): its value within the range, or `fallback` when it is not
 * given. Anything else is a usage error that names the flag, the range and what was given.
 */
export function wholeNumberFlag(flags: Flags, name: string, range: WholeNumberRange): number {
  const value = flags[name];
  if (value === undefined) return range.fallback;
  const { min, max, label = `--${name}` } = range;
  const n = typeof value === 'string' ? decimalNumber(value) : Number.NaN;
  if (!Number.isInteger(n) || n < min || (max !== undefined && n > max)) {
    const bounds = max === undefined ? `of ${min} or more` : `from ${min} to ${max}`;
    throw new UsageError(`${label} must be a whole number ${bounds}, got "${String(value)}"`);
  }
  return n;
}

/** A flag in seconds (`--grace`), 0 or more and fractions allowed, as milliseconds; `fallback` in seconds. */
export function secondsFlag(flags: Flags, name: string, fallback: number): number {
  const value = flags[name];
  if (value === undefined) return fallback * 1000;
  const seconds = typeof value === 'string' ? decimalNumber(value) : Number.NaN;
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new UsageError(`--${name} must be a number of seconds (0 or more), got "${String(value)}"`);
  return seconds * 1000;
}
