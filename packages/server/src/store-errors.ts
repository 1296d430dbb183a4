import { isStoreError } from '@birdie/store/errors';
import { ApiError } from './errors.js';

/**
 * A store failure as the API words it. Nothing internal leaks: not the holder's host and pid of a busy session, not
 * another user's name, not the database's address.
 */
export function apiErrorOf(error: unknown, sessionId?: string): ApiError | undefined {
  if (!isStoreError(error)) return undefined;
  const session = sessionId ? `session ${sessionId}` : 'the session';
  switch (error.code) {
    case 'session-busy':
    case 'lease-lost':
      return new ApiError(
        'session-busy',
        `${session} is busy: another turn is running on it; try again when it ends`,
        {
          cause: error,
        },
      );
    case 'not-owner':
    case 'not-found':
    case 'invalid-id':
      return new ApiError('not-found', sessionId ? `no session ${sessionId}` : 'not found', { cause: error });
    case 'invalid-argument':
      return new ApiError('invalid-request', error.message, { cause: error });
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
