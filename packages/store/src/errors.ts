/** Stable codes for every failure the store reports. */
export type StoreErrorCode =
  | 'invalid-id'
  | 'invalid-argument'
  | 'not-found'
  | 'locked'
  | 'migration-failed'
  | 'closed'
  | 'home-unusable'
  | 'io';

/** A run-time failure of the store, with a stable `code` and the underlying `cause`. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** SQLite reports a held lock as SQLITE_BUSY / SQLITE_LOCKED (with extended variants). */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}
