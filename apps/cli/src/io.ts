import type { Readable, Writable } from 'node:stream';

export type Output = Writable & { isTTY?: boolean; columns?: number };
export type Input = Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };

/** Everything a command may touch of its process, so tests can run commands in-process with captured streams. */
export interface Io {
  stdout: Output;
  stderr: Output;
  stdin: Input;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The CLI's bundled skills and agents (set by `main` from the package's own folders). */
  bundled?: { skills?: string; agents?: string };
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

export const EXIT_OK = 0;
export const EXIT_RUN = 1;
export const EXIT_USAGE = 2;
/** The session is in use by another process (a turn of `birdie run` or the REPL): retry later, or pass --wait. */
export const EXIT_BUSY = 3;

/**
 * The mark `@birdie/runtime` puts on its failures (`RuntimeError`, which carries the same exit codes). Checked by its
 * global symbol, so recognising one does not load the runtime (`--version` and `--help` load nothing but the CLI).
 */
const FAILURE = Symbol.for('birdie.runtime-error');

/** A failure that ends the command with a message and an exit code; everything else is a bug and shows its stack. */
export class CliError extends Error {
  readonly exitCode: number;
  readonly [FAILURE] = true;
  constructor(message: string, exitCode: number = EXIT_RUN, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** Bad argv, config or environment: exit code 2. */
export class UsageError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, EXIT_USAGE, options);
    this.name = 'UsageError';
  }
}

/** Whether `error` is a failure to report in one line with its exit code: the CLI's own or the runtime's. */
export function isFailure(error: unknown): error is Error & { exitCode: number } {
  return (
    error instanceof Error &&
    (error as unknown as Record<symbol, unknown>)[FAILURE] === true &&
    typeof (error as { exitCode?: unknown }).exitCode === 'number'
  );
}

export function write(out: Output, text: string): void {
  out.write(text.endsWith('\n') ? text : `${text}\n`);
}
