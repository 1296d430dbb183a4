import type { Db } from './db.js';
import { StoreError } from './errors.js';
import { validateSessionId, validateUserId } from './ids.js';

/**
 * Every read or write of a session by id names the acting user, and a session of another user is
 * refused. Repositories take the user id as a required parameter and call `require` first, so
 * the check cannot be left out by a caller.
 */
export interface Ownership {
  /** Validates both ids: `missing` when there is no such session, `owned` when it is the user's, else throws `not-owner`. */
  check(sessionId: string, userId: string): 'missing' | 'owned';
  /** Like `check`, but a missing session throws `not-found`. */
  require(sessionId: string, userId: string): void;
}

export function createOwnership(db: Db): Ownership {
  const ownerOf = db.prepare<[string], { user_id: string }>('SELECT user_id FROM sessions WHERE id = ?');
  const check = (sessionId: string, userId: string): 'missing' | 'owned' => {
    validateSessionId(sessionId);
    validateUserId(userId);
    const row = ownerOf.get(sessionId);
    if (!row) return 'missing';
    if (row.user_id !== userId) {
      throw new StoreError(
        'not-owner',
        `session ${sessionId} belongs to user ${row.user_id}, not ${userId}`,
        { owner: row.user_id, hint: `act as ${row.user_id} to use it` },
      );
    }
    return 'owned';
  };
  return {
    check,
    require(sessionId, userId) {
      if (check(sessionId, userId) === 'missing') {
        throw new StoreError('not-found', `no session ${sessionId}`);
      }
    },
  };
}
