import { isStoreError } from '@birdie/store/errors';
import { ApiError } from './errors.js';

/**
 * A store failure as the API words it. Nothing internal leaks: not the holder's host and pid of a busy session, not
 * another user's name, not the database's address.
 */
/**
 * Whether the database itself refused a value (its error is the cause). Such a message names the database (its URL or
 * file) for the operator, whatever else it says: the client gets a fixed sentence, the operator's log the original.
 * The store's own refusals (no cause) name only what the caller sent.
 */
export function isEngineRefusal(error: unknown): boolean {
  return isStoreError(error, 'invalid-argument') && error.cause !== undefined;
}

export function apiErrorOf(error: unknown, sessionId?: string): ApiError | undefined {
  if (!isStoreError(error)) return undefined;
  switch (error.code) {
    case 'session-busy':
    case 'lease-lost':
      return sessionBusy(sessionId, error);
    case 'not-owner':
    case 'not-found':
    case 'invalid-id':
      return new ApiError('not-found', sessionId ? `no session ${sessionId}` : 'not found', { cause: error });
    case 'invalid-argument':
      return new ApiError(
        'invalid-request',
        isEngineRefusal(error)
          ? 'a value of this request cannot be stored (too long, or not valid text)'
          : error.message,
        { cause: error },
      );
    case 'unavailable':
    case 'locked':
    case 'read-only':
    case 'disk-full':
    case 'closed':
      return new ApiError(
        'unavailable',
        `the store cannot take this request now (${error.code}); try again later`,
        {
          cause: error,
          retryAfter: 5,
        },
      );
    default:
      return undefined;
  }
}

/** `409 session-busy`: a turn of the session runs (on any worker). */
export function sessionBusy(sessionId: string | undefined, cause?: unknown): ApiError {
  const session = sessionId ? `session ${sessionId}` : 'the session';
  return new ApiError(
    'session-busy',
    `${session} is busy: another turn is running on it; try again when it ends`,
    cause === undefined ? {} : { cause },
  );
}
