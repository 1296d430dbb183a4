import type { Readable, Writable } from 'node:stream';
import type { RuntimeIo } from '@birdie/runtime/io';

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
  bundled?: RuntimeIo['bundled'];
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
// The runtime's failures carry the status the CLI exits with (1 run, 2 usage, 3 busy); the CLI's own use them too.
export {
  EXIT_BUSY,
  EXIT_RUN,
  EXIT_USAGE,
  RuntimeError as CliError,
  UsageError,
} from '@birdie/runtime/errors';

export function write(out: Output, text: string): void {
  out.write(text.endsWith('\n') ? text : `${text}\n`);
}
