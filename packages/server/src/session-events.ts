import type { Session, Store } from '@birdie/store';
import { apiErrorOf } from './store-errors.js';
import type { Followers } from './turn-follow.js';

/**
 * `GET /v1/sessions/{id}/events`: recorded events, then the new ones as they are recorded, on whichever worker runs the
 * turn. Without `Last-Event-ID`: the session's newest turn from its start, until it ends. With one whose turn has not
 * ended: the rest of that turn, until it ends (as lost, if its worker died), never a later turn's events as if they
 * were its rest. With one whose turn ended (or that is not known): the session's events after it, until its newest
 * turn ends (a client cut before a new turn's first event gets that turn this way).
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
 * The turn event `id` of the session belongs to, when it has not ended; nothing when it has, or when the session has
 * no such event (pruned, another session's id, 0): the events after it are then followed to the end of the newest
 * turn.
 */
async function turnOfEvent(store: Store, session: Session, id: number): Promise<{ turnId?: number }> {
  if (id < 1) return {};
  try {
    const [event] = await store.turns.events(session.id, session.userId, { afterId: id - 1, limit: 1 });
    if (event?.id !== id) return {};
    const turn = await store.turns.get(event.turnId, session.userId);
    return turn && turn.state !== 'ended' ? { turnId: turn.id } : {};
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
