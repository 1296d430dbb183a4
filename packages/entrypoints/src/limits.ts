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

export function limitsOf(options: RunOptions): Limits {
  return {
    timeoutMs: Math.min(positive(options.timeoutMs, DEFAULT_TIMEOUT_MS), MAX_TIMER_MS),
    maxOutputBytes: positive(options.maxOutputBytes, DEFAULT_MAX_OUTPUT_BYTES),
    maxImageBytes: positive(options.maxImageBytes, DEFAULT_MAX_IMAGE_BYTES),
    killGraceMs: positive(options.killGraceMs, DEFAULT_KILL_GRACE_MS),
  };
}

function positive(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback;
}

export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
