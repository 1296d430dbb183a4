import { StoreError, validateSessionId, validateUserId } from '@birdie/store/backend';
import type { Queryable } from './db.js';

/**
 * Every read or write of a session by id names the acting user, and a session of another user is refused
 * (`not-owner`, whose `owner` names the session's user). Validates both ids first.
 */
export async function checkOwner(
  q: Queryable,
  sessionId: string,
  userId: string,
): Promise<'missing' | 'owned'> {
  validateSessionId(sessionId);
  validateUserId(userId);
  const { rows } = await q.query<{ user_id: string }>('SELECT user_id FROM sessions WHERE id = $1', [
    sessionId,
  ]);
  const row = rows[0];
  if (!row) return 'missing';
  if (row.user_id !== userId) {
    throw new StoreError('not-owner', `session ${sessionId} belongs to user ${row.user_id}, not ${userId}`, {
      owner: row.user_id,
      hint: `act as ${row.user_id} to use it`,
    });
  }
  return 'owned';
}

/** Like `checkOwner`, but a missing session throws `not-found`. */
export async function requireOwner(q: Queryable, sessionId: string, userId: string): Promise<void> {
  if ((await checkOwner(q, sessionId, userId)) === 'missing') {
    throw new StoreError('not-found', `no session ${sessionId}`);
  }
}
