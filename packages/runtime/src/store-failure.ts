import { EXIT_BUSY, EXIT_RUN, RuntimeError } from './errors.js';

/** The fields of `@birdie/store`'s `StoreError` the CLI reads (duck-typed, so this module loads nothing). */
interface StoreErrorLike {
  name: string;
  code: string;
  message: string;
  hint?: string;
  damage?: { sessionId?: string };
}

/** A store failure as it reaches the CLI: thrown (`StoreErrorLike`) or in an agent's `error` event. */
export interface FailureLike {
  code: string;
  message: string;
  hint?: string;
}

export function isStoreErrorLike(error: unknown): error is StoreErrorLike {
  return (
    error instanceof Error &&
    error.name === 'StoreError' &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}

/**
 * Where the user reads a hint: its commands are that place's (`birdie sessions list` in a shell, `/session list` in
 * the REPL); an editor over ACP is told no flag, since its user never types birdie's command line.
 */
export type HintPlace = 'shell' | 'repl' | 'editor';

/**
 * The one wording of a store failure, whichever command and whichever step met it: the store's message (it names
 * the file) and, in brackets, what to do. A damaged record's fix is the command that does it, in the place the user
 * reads it: inside the REPL the damaged session is the current one, so it is left (`/new`) before it is deleted.
 */
export function storeFailureText(
  failure: FailureLike,
  sessionId?: string,
  from: HintPlace = 'shell',
): string {
  const hint = storeFailureHint(failure, sessionId, from);
  return hint ? `${failure.message} (${hint})` : failure.message;
}

/**
 * Why a turn ended `error`, from its result, as a store failure is said (`storeFailureText`): the code of the failure
 * behind it (`internal` when it has none), its message (`fallback` when it has none) and hint.
 */
export function turnFailure(
  result: { error?: string; errorCode?: string; errorHint?: string },
  fallback = '',
): FailureLike {
  return {
    code: result.errorCode ?? 'internal',
    message: result.error ?? fallback,
    ...(result.errorHint ? { hint: result.errorHint } : {}),
  };
}

/** What to do about a store failure, as `storeFailureText` says it in brackets (`birdie run --json`'s `hint`). */
export function storeFailureHint(
  failure: FailureLike,
  sessionId?: string,
  from: HintPlace = 'shell',
): string | undefined {
  return failure.code === 'corrupt-record' && sessionId
    ? from === 'repl'
      ? `run \`birdie sessions repair ${sessionId}\` in a shell to continue from that step, or \`/new\` then \`/session delete ${sessionId}\``
      : `run \`birdie sessions repair ${sessionId}\` to continue from that step, or \`birdie sessions delete ${sessionId}\``
    : failure.code === 'session-busy'
      ? // A busy session is not broken: say how to wait for it.
        `${failure.hint ?? 'try again when it is free'}${from === 'editor' ? '' : '; or pass --wait SECONDS'}`
      : failure.hint;
}

/** A thrown store failure as the CLI error that ends the command; a busy session has its own exit code. */
export function storeFailure(error: StoreErrorLike, from: HintPlace = 'shell'): RuntimeError {
  return new RuntimeError(
    storeFailureText(error, error.damage?.sessionId, from),
    error.code === 'session-busy' ? EXIT_BUSY : EXIT_RUN,
    { cause: error },
  );
}

/**
 * The store's `session-busy` error behind a busy `RuntimeError` (a turn or compaction of a session in use), else
 * the error itself: for callers that word or map the store's failure themselves (a server's 409, `--json`'s code).
 */
export function sessionBusyCause(error: unknown): unknown {
  const cause = error instanceof Error ? error.cause : undefined;
  return isStoreErrorLike(cause) && cause.code === 'session-busy' ? cause : error;
}

/** Store failures a run can meet mid-turn (they reach the CLI as error events with these codes). */
const FAILURE_CODES = new Set([
  'disk-full',
  'file-too-large',
  'read-only',
  'malformed',
  'corrupt-record',
  'lease-lost',
  'session-busy',
  'not-owner',
  'locked',
  'io',
]);

export function isStoreFailureCode(code: string | undefined): boolean {
  return code !== undefined && FAILURE_CODES.has(code);
}

/**
 * `birdie doctor`'s report for a store that failed to open (`error`, whose cause is the store's failure): its reason
 * and hint as integrity and advice; no fields when the failure is not the store's.
 */
export function unopenedStoreReport(error: unknown): Record<string, unknown> {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!isStoreErrorLike(cause)) return {};
  const { file, hint } = cause as { file?: string; hint?: string };
  return {
    location: file ?? '',
    ok: false,
    integrity: [cause.message],
    checked: 0,
    damaged: [],
    sessions: [],
    advice: [hint ?? cause.message],
  };
}
