import { CliError, EXIT_BUSY, EXIT_RUN } from './io.js';

/** The fields of `@birdie/store`'s `StoreError` the CLI reads (duck-typed, so this module loads nothing). */
interface StoreErrorLike {
  name: string;
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
 * One wording for every store failure, whichever command and whichever step met it: the store's message (it names
 * the file) and, in brackets, what to do. A busy session has its own exit code; the rest are run errors.
 */
export function storeFailure(error: StoreErrorLike): CliError {
  const text = error.hint ? `${error.message} (${error.hint})` : error.message;
  return new CliError(text, error.code === 'session-busy' ? EXIT_BUSY : EXIT_RUN, { cause: error });
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
]);

export function isStoreFailureCode(code: string | undefined): boolean {
  return code !== undefined && FAILURE_CODES.has(code);
}
