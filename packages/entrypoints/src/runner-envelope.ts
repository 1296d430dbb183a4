import { EntrypointError } from './errors.js';
import { signalNote } from './exit-status.js';
import type { Limits } from './limits.js';
import { capText } from './output-cap.js';
import type { ProcessOutcome } from './process.js';
import type { RunResult } from './types.js';

/**
 * The one JSON line a runner child (`python:`, a sandboxed `node:`) writes on its stdout: the function's result, or
 * the kind of failure (an `EntrypointErrorCode`) and its text.
 */
export interface Envelope {
  ok: boolean;
  result?: unknown;
  kind?: string;
  error?: string;
}

export function parseEnvelope(text: string): Envelope | undefined {
  try {
    const value = JSON.parse(text) as Envelope;
    return value && typeof value === 'object' && typeof value.ok === 'boolean' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Room for the envelope: it may be larger than the text the model gets (JSON escapes), and must be parsed whole.
 */
export function envelopeLimits(limits: Limits): Limits {
  return { ...limits, maxOutputBytes: Math.max(limits.maxOutputBytes * 4, 1024 * 1024) };
}

/** An envelope cut at the cap cannot be parsed: its result's start is what the model gets, marked truncated. */
export function truncatedResult(outcome: ProcessOutcome, limits: Limits): RunResult {
  const capped = capText(outcome.output.replace(/^\{"ok": ?true, ?"result": ?/, ''), limits.maxOutputBytes);
  return { output: capped.text, exitCode: 0, truncated: true };
}

/** The child ended without a usable envelope: `bad-output` when it exited 0, else `non-zero-exit`. */
/** `note`: what the caller adds after the output (the sandbox's note on a write it refused). */
export function noResultError(
  outcome: ProcessOutcome,
  program: string,
  where: string,
  note = '',
): EntrypointError {
  const stderr = outcome.stderrTail ? `\n${outcome.stderrTail}` : '';
  const exitCode = outcome.exitCode ?? undefined;
  const status =
    outcome.exitCode === null
      ? `was killed by ${outcome.signal}`
      : `exited with code ${outcome.exitCode}${signalNote(outcome)}`;
  return new EntrypointError(
    outcome.exitCode === 0 ? 'bad-output' : 'non-zero-exit',
    `${program} ${status} without a result for ${where}${stderr}${note}`,
    {
      output: outcome.output,
      ...(exitCode === undefined ? {} : { exitCode }),
    },
  );
}
