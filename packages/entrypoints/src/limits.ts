import { EntrypointError } from './errors.js';
import { DEFAULT_MAX_IMAGE_BYTES } from './image-limit.js';
import type { RunOptions } from './types.js';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 100 * 1024;
export const DEFAULT_KILL_GRACE_MS = 2_000;

export interface Limits {
  timeoutMs: number;
  maxOutputBytes: number;
  maxImageBytes: number;
  killGraceMs: number;
}

/**
 * The longest delay a Node timer holds (2^31-1 ms, about 24.8 days); a longer one fires at once. Skill files and
 * `--timeout` refuse longer timeouts where they are read; a caller of the library that passes one gets this.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The call's limits, each option's default where it is not given. A limit that is given but is not one (a string
 * read from the environment, a negative or non-finite number, `null`) is `bad-option`: a call never runs with a
 * default its caller did not ask for. `retries` is checked here too, though only `http:` reads it.
 */
export function limitsOf(options: RunOptions): Limits {
  if (options.retries !== undefined && !(Number.isInteger(options.retries) && options.retries >= 0))
    throw badOption('retries', 'a whole number from 0', options.retries);
  return {
    timeoutMs: Math.min(positive(options, 'timeoutMs', DEFAULT_TIMEOUT_MS), MAX_TIMER_MS),
    maxOutputBytes: positive(options, 'maxOutputBytes', DEFAULT_MAX_OUTPUT_BYTES),
    maxImageBytes: positive(options, 'maxImageBytes', DEFAULT_MAX_IMAGE_BYTES),
    killGraceMs: positive(options, 'killGraceMs', DEFAULT_KILL_GRACE_MS),
  };
}

type LimitName = 'timeoutMs' | 'maxOutputBytes' | 'maxImageBytes' | 'killGraceMs';

function positive(options: RunOptions, name: LimitName, fallback: number): number {
  const value: unknown = options[name];
  if (value === undefined) return fallback;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  throw badOption(name, `a positive number of ${name.endsWith('Ms') ? 'milliseconds' : 'bytes'}`, value);
}

function badOption(name: string, what: string, value: unknown): EntrypointError {
  const shown =
    typeof value === 'string'
      ? `${JSON.stringify(value.slice(0, 40))} (a string)`
      : typeof value === 'number' || value === null
        ? String(value)
        : `a value of type ${typeof value}`;
  return new EntrypointError('bad-option', `${name} must be ${what}, not ${shown}`);
}

export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
