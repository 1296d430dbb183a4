import type { Session, Store } from '@birdie/store';
import { ApiError } from './errors.js';
import { apiErrorOf } from './store-errors.js';
import type { Followers } from './turn-follow.js';

/**
 * `GET /v1/sessions/{id}/events`: the session's recorded events after `Last-Event-ID` (without one: from the start
 * of its newest turn), then the new ones while a turn runs, on whichever worker runs it; the stream ends when no turn
 * of the session is running.
 */
export async function sessionEvents(
  store: Store,
  followers: Followers,
  session: Session,
  lastEventId: string | undefined,
): Promise<Response> {
  const who = { sessionId: session.id, userId: session.userId };
  if (lastEventId === undefined) return followers.respond({ ...who, ...(await newestTurn(store, session)) });
  if (!/^\d{1,15}$/.test(lastEventId.trim()))
    throw new ApiError(
      'invalid-request',
      'Last-Event-ID must be the id of an event of this API (an integer)',
    );
  return followers.respond({ ...who, afterId: Number(lastEventId.trim()) });
}

/** The session's newest turn, from its first event; nothing (an empty stream) when no turn is kept. */
async function newestTurn(store: Store, session: Session): Promise<{ afterId: number; turnId?: number }> {
  try {
    const turn = await store.turns.latest(session.id, session.userId);
    return turn ? { afterId: 0, turnId: turn.id } : { afterId: Number.MAX_SAFE_INTEGER };
  } catch (error) {
    throw apiErrorOf(error, session.id) ?? error;
  }
}
