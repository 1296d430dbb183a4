import type { Session, Store } from '@birdie/store';
import { apiErrorOf } from './store-errors.js';
import type { Followers } from './turn-follow.js';

/**
 * `GET /v1/sessions/{id}/events`: one turn's recorded events, then the new ones while it runs, on whichever worker runs
 * it; the stream ends when that turn ends. Without `Last-Event-ID` the turn is the session's newest, from its start;
 * with one, it is the turn that event belongs to, from after it (a client reattaching to the stream it was cut from
 * gets the rest of that turn, never a later turn's events as if they were its rest).
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
  const afterId = Number(lastEventId);
  return followers.respond({ ...who, afterId, ...(await turnOfEvent(store, session, afterId)) });
}

/**
 * The turn event `id` of the session belongs to; nothing when the session has no such event (pruned, or another
 * session's id): the events after it are then followed as they come, to the end of the newest turn.
 */
async function turnOfEvent(store: Store, session: Session, id: number): Promise<{ turnId?: number }> {
  try {
    const [event] = await store.turns.events(session.id, session.userId, { afterId: id - 1, limit: 1 });
    return event?.id === id ? { turnId: event.turnId } : {};
  } catch (error) {
    throw apiErrorOf(error, session.id) ?? error;
  }
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
