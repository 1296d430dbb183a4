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

/** A failure that ends the command with a message and an exit code; everything else is a bug and shows its stack. */
export class CliError extends Error {
  readonly exitCode: number;
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

export function write(out: Output, text: string): void {
  out.write(text.endsWith('\n') ? text : `${text}\n`);
}
