import { isStoreErrorLike, storeFailureHint } from '@birdie/runtime/store-failure';
import { EXIT_USAGE, isFailure, type Output, write } from '../io.js';

/** A failure as `--json` says it: a stable code, the message, and what to do when its source says. */
export interface FailureJson {
  code: string;
  message: string;
  hint?: string;
}

/**
 * What ended a command or a turn, as fields. A usage error (exit 2) is `usage` with its own sentence, which names the
 * fix (`pass --user U`) even when a store error is behind it. A store failure (thrown by the store, or behind the
 * runtime's or the CLI's error that words it) keeps the store's code (`malformed`, `disk-full`, `unavailable`,
 * `session-busy`…), its message and its hint, the hint worded as stderr's line words it. Any other failure a command
 * ends with is `failure`; anything else is a bug: `internal`.
 */
export function failureJson(thrown: unknown): FailureJson {
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  if (isFailure(thrown) && thrown.exitCode === EXIT_USAGE) return { code: 'usage', message };
  const cause = thrown instanceof Error ? thrown.cause : undefined;
  const store = isStoreErrorLike(thrown) ? thrown : isStoreErrorLike(cause) ? cause : undefined;
  if (store) {
    const hint = storeFailureHint(store, store.damage?.sessionId);
    return { code: store.code, message: store.message, ...(hint ? { hint } : {}) };
  }
  return { code: isFailure(thrown) ? 'failure' : 'internal', message };
}

/** Failures whose object is out already: a command that printed its own (with its fields) is not printed twice. */
const printed = new WeakSet<object>();

/** Whether `printFailureJson` printed `thrown` already (a command printed its own object before throwing it). */
export function wasPrinted(thrown: unknown): boolean {
  return typeof thrown === 'object' && thrown !== null && printed.has(thrown);
}

/**
 * Prints the failure that ends a `--json` command as one JSON object on `out` (stdout, where a script reads):
 * `{"ok":false,"error":{"code","message","hint?"}}`, with a command's own fields first (`birdie doctor`'s report).
 * `main` prints it for every command whose failure is not printed yet.
 */
export function printFailureJson(out: Output, thrown: unknown, fields: Record<string, unknown> = {}): void {
  if (typeof thrown === 'object' && thrown !== null) printed.add(thrown);
  write(out, JSON.stringify({ ...fields, ok: false, error: failureJson(thrown) }));
}
