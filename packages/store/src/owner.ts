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
  /** `require` on the session's owner as a statement of the caller's transaction read it (undefined: no session). */
  requireOwner(sessionId: string, userId: string, owner: string | undefined): void;
}

export function createOwnership(db: Db): Ownership {
  const ownerOf = db.prepare<[string], { user_id: string }>('SELECT user_id FROM sessions WHERE id = ?');
  const checkOwner = (sessionId: string, userId: string, owner: string | undefined): 'missing' | 'owned' => {
    if (owner === undefined) return 'missing';
    if (owner !== userId) {
      throw new StoreError('not-owner', `session ${sessionId} belongs to user ${owner}, not ${userId}`, {
        owner,
        hint: `act as ${owner} to use it`,
      });
    }
    return 'owned';
  };
  const check = (sessionId: string, userId: string): 'missing' | 'owned' => {
    validateSessionId(sessionId);
    validateUserId(userId);
    return checkOwner(sessionId, userId, ownerOf.get(sessionId)?.user_id);
  };
  const requireOwner = (sessionId: string, userId: string, owner: string | undefined): void => {
    if (checkOwner(sessionId, userId, owner) === 'missing') {
      throw new StoreError('not-found', `no session ${sessionId}`);
    }
  };
  return {
    check,
    require(sessionId, userId) {
      validateSessionId(sessionId);
      validateUserId(userId);
      requireOwner(sessionId, userId, ownerOf.get(sessionId)?.user_id);
    },
    requireOwner(sessionId, userId, owner) {
      validateSessionId(sessionId);
      validateUserId(userId);
      requireOwner(sessionId, userId, owner);
    },
  };
}
