/** The status a front end reports for a failure: a run that failed. */
export const EXIT_RUN = 1;
/** The caller's input, configuration or environment is wrong (bad flag, unknown session, unusable folder). */
export const EXIT_USAGE = 2;
/** The session is in use by another process (a turn elsewhere holds its lease): retry later, or wait longer. */
export const EXIT_BUSY = 3;

/** What kind of failure: `usage` for the caller's to fix, `busy` for a session in use, `failure` for the rest. */
export type RuntimeErrorCode = 'failure' | 'usage' | 'busy';

/**
 * The mark every `RuntimeError` carries, by a global symbol: a front end recognises the runtime's failures without
 * importing this module (the CLI's `--version` loads nothing of the runtime), and so do two copies of the package.
 */
export const RUNTIME_ERROR = Symbol.for('birdie.runtime-error');

const CODE_OF: Record<number, RuntimeErrorCode> = { [EXIT_USAGE]: 'usage', [EXIT_BUSY]: 'busy' };

/**
 * A failure the runtime explains in one sentence a user can act on; anything else it throws is a bug. `exitCode` is
 * the status a command-line front end ends with (1, 2 or 3); a server maps `code` to its own answer.
 */
export class RuntimeError extends Error {
  readonly exitCode: number;
  readonly code: RuntimeErrorCode;
  readonly [RUNTIME_ERROR] = true;
  constructor(message: string, exitCode: number = EXIT_RUN, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RuntimeError';
    this.exitCode = exitCode;
    this.code = CODE_OF[exitCode] ?? 'failure';
  }
}

/** Bad flags, configuration or environment. */
export class UsageError extends RuntimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT_USAGE, options);
    this.name = 'UsageError';
  }
}

export function isRuntimeError(error: unknown): error is RuntimeError {
  return error instanceof Error && (error as unknown as Record<symbol, unknown>)[RUNTIME_ERROR] === true;
}
