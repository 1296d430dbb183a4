import type { Readable } from 'node:stream';
import type { Output } from '@birdie/terminal/output';
import { installChangedMessage } from './install-changed.js';

// One stream type for the CLI and the renderer it draws with (type-only: loads nothing at run time).
export type { Output };
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

/** The process's streams; stdout is birdie's own (see `ownProcessStdout`), called after `guardProcessOutput`. */
export function processIo(): Io {
  return {
    stdout: ownProcessStdout(),
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

export const EXIT_OK = 0;
export const EXIT_RUN = 1;
export const EXIT_USAGE = 2;

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

// stdout or stderr that cannot be written: a reader that went away (`birdie run --json | head -1`, EPIPE) or a full
// disk (`> events.jsonl` on a full runner, ENOSPC). A file's write fails at once (Node writes files synchronously),
// a pipe's later as an 'error' event; unguarded, either one ends the process with a stack trace or on the spot,
// leaving the run `died` in the run log. Guarded, the first failure stops the running command as a stop signal
// would (stop-signals.ts listens), later writes to that stream are dropped, and the process ends with one line (none
// for a closed pipe). Kept here, not in a module of its own: `--version` loads nothing more than it must.

/** The first failed write of the process, if any. */
export interface OutputFailure {
  stream: 'stdout' | 'stderr';
  error: NodeJS.ErrnoException;
}

let outputFailed: OutputFailure | undefined;
const outputFailureListeners = new Set<() => void>();

export function outputFailure(): OutputFailure | undefined {
  return outputFailed;
}

/** Calls `listener` when stdout or stderr fails (once); returns the uninstaller. */
export function onOutputFailure(listener: () => void): () => void {
  outputFailureListeners.add(listener);
  return () => outputFailureListeners.delete(listener);
}

/**
 * stdout carries what a command promises there (the answer, `--json` events, ACP's and MCP's messages), so only the
 * command may write to it. Code that runs inside birdie's process (a `node:` tool, a library) and writes to
 * `process.stdout` (`console.log`, `process.stdout.write`) would mix into it: a debug line in the answer, a forged
 * JSON event, a broken JSON-RPC stream. From here on such writes go to stderr, and the command writes to the real
 * stdout through the stream returned (the same stream in every other respect: TTY, columns, events).
 */
let ownedStdout: Output | undefined;

function ownProcessStdout(): Output {
  // Once per process: a second call would take the redirected write for the real one and send the command's own
  // output to stderr.
  if (ownedStdout) return ownedStdout;
  const stdout = process.stdout;
  const write = stdout.write;
  stdout.write = ((...args: unknown[]) =>
    (process.stderr.write as (...a: unknown[]) => boolean)(...args)) as NodeJS.WriteStream['write'];
  const own = (...args: unknown[]) => (write as (...a: unknown[]) => boolean).apply(stdout, args);
  ownedStdout = new Proxy(stdout, {
    get(target, key) {
      if (key === 'write') return own;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return ownedStdout;
}

/** Guards the process's stdout and stderr (bin.ts, once). */
export function guardProcessOutput(): void {
  guardOutput(process.stdout, 'stdout');
  guardOutput(process.stderr, 'stderr');
}

function guardOutput(stream: NodeJS.WriteStream, name: OutputFailure['stream']): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    const callback = args.find((arg): arg is () => void => typeof arg === 'function');
    if (outputFailed?.stream === name) {
      callback?.();
      return true;
    }
    try {
      return write(...args);
    } catch (error) {
      outputFailedOn(name, error as NodeJS.ErrnoException);
      callback?.();
      return true;
    }
  }) as NodeJS.WriteStream['write'];
  stream.on('error', (error: NodeJS.ErrnoException) => outputFailedOn(name, error));
}

function outputFailedOn(stream: OutputFailure['stream'], error: NodeJS.ErrnoException): void {
  if (outputFailed) return;
  outputFailed = { stream, error };
  // A running command ends its work first (its turn cancelled and logged, its tools stopped), then bin.ts exits with
  // `outputExitCode`. Nothing running: nothing to end, so the process ends now.
  if (outputFailureListeners.size === 0) process.exit(outputExitCode(Number(process.exitCode ?? 0)));
  for (const listener of [...outputFailureListeners]) listener();
}

/** A closed pipe is how a reader says it has enough: no message, the command's own code. Any other failure: one line. */
export function outputExitCode(code: number): number {
  if (!outputFailed || outputFailed.error.code === 'EPIPE') return code;
  if (outputFailed.stream === 'stdout')
    write(process.stderr, `birdie: cannot write to stdout: ${outputFailed.error.message}`);
  return code === 0 ? EXIT_RUN : code;
}

// A failure no code handled: a promise rejected with no handler, an exception thrown from a callback (a timer, an
// event) outside any `try`. Node's default ends the process with a stack trace: under `birdie acp` or `serve` every
// session's running turn dies with it, for what is usually one skill tool's bug (a fire-and-forget `fetch`, a
// forgotten `await`). `@birdie/entrypoints` runs each in-process `node:` call in an async scope and claims what comes
// from it (through a global symbol, so this guard loads nothing): the call fails with it while it runs, and once it is
// over the failure is logged. What no tool claims is birdie's or a library's: a rejection is logged (a promise nobody
// awaited left no code half-run); an exception interrupted birdie's own code midway, leaving its state unknown, so
// the process ends as Node would end it. Kept here, not in a module of its own, for the same reason as above.

type StrayFailureKind = 'rejection' | 'exception';
type StrayFailureClaimer = (
  error: unknown,
  kind: StrayFailureKind,
) => { tool: string; failedCall: boolean; shared?: true } | undefined;

const CLAIM_STRAY_FAILURE = Symbol.for('birdie.claim-stray-failure');

let strayFailureLog: (line: string) => void = (line) => write(process.stderr, line);

/** Where the guard's lines go (`birdie serve --log-format json`: its log); returns the undo. */
export function logStrayFailuresTo(log: (line: string) => void): () => void {
  const before = strayFailureLog;
  strayFailureLog = log;
  return () => {
    strayFailureLog = before;
  };
}

/** A rejection no tool claimed was logged: the command's result may be short of what it did not finish. */
let unclaimedRejection = false;

/**
 * The exit code of a command that returned `code`: a command that reports success while a promise of birdie's own (or
 * a library's) was rejected with nobody to handle it exits `EXIT_RUN` instead, as Node's default would have (it ended
 * the process); a tool's stray failure is its call's and changes nothing here.
 */
export function exitCodeAfterStrayFailures(code: number): number {
  return code === EXIT_OK && unclaimedRejection ? EXIT_RUN : code;
}

/** Installs the process's handlers of failures no code handled (bin.ts, once). */
export function guardProcessFailures(): void {
  process.on('unhandledRejection', (reason) => strayFailure(reason, 'rejection'));
  process.on('uncaughtException', (error) => strayFailure(error, 'exception'));
}

function strayFailure(error: unknown, kind: StrayFailureKind): void {
  // Synchronously, here: the async context the handler runs in is what names the tool call.
  const claimer = (globalThis as Record<symbol, unknown>)[CLAIM_STRAY_FAILURE] as
    | StrayFailureClaimer
    | undefined;
  const claim = claimer?.(error, kind);
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (claim) {
    const what =
      kind === 'rejection' ? 'left a promise rejected that nothing handled' : 'threw from a callback';
    const outcome = claim.failedCall
      ? 'its call failed'
      : claim.shared
        ? 'another call of its module was running, so no call is failed for it; ignored'
        : 'after its call ended; ignored';
    strayFailureLog(`birdie: ${unseenEscaped(`${claim.tool} ${what}: ${reason}`, true)} (${outcome})`);
    return;
  }
  // One of birdie's own files gone (an upgrade while it ran) is said as that, without a stack.
  const changed = installChangedMessage(error);
  if (changed) {
    strayFailureLog(`birdie: ${changed}`);
    if (kind === 'rejection') unclaimedRejection = true;
    else process.exit(EXIT_RUN);
    return;
  }
  const stack = unseenEscaped(error instanceof Error ? (error.stack ?? reason) : reason, false);
  if (kind === 'rejection') {
    unclaimedRejection = true;
    strayFailureLog(`birdie: a promise was rejected and nothing handled it: ${stack}`);
    return;
  }
  strayFailureLog(`birdie: unexpected error: ${stack}`);
  process.exit(EXIT_RUN);
}

/** A tool's message as a terminal may show it: controls written `\uXXXX` (line breaks too, for one line). */
export function unseenEscaped(text: string, oneLine: boolean): string {
  const unseen = oneLine
    ? /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g
    : /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
  return text.replace(unseen, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
