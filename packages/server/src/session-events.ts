import type { Session, Store } from '@birdie/store';
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
  // Checked by the route's schema: an integer of at most 15 digits.
  return followers.respond({ ...who, afterId: Number(lastEventId) });
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
