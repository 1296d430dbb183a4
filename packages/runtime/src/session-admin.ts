import type { RepairReport, Session, Store } from '@birdie/store';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { type History, readHistory } from './history.js';
import type { RuntimeIo } from './io.js';
import { findSession } from './runtime.js';
import { removeSessionDir } from './session-dir.js';
import { oneLine } from './session-titles.js';
import { withUserStore } from './store-command.js';

// Session commands that need no runtime (no model, no registry): each opens the user's store, finds the session of
// the user (`--user`, else `$USER`) by its id or unique start, does its one thing, and closes the store.

/** The user's sessions, most recently used first. */
export async function listSessions(
  io: RuntimeIo,
  flags: Flags,
): Promise<{ userId: string; sessions: Session[] }> {
  return withUserStore(io, flags, false, async (store, userId) => ({
    userId,
    sessions: await store.sessions.list(userId),
  }));
}

/** A session with its history (`damage` names what could not be read; everything before it is there). */
export async function readSession(
  io: RuntimeIo,
  flags: Flags,
  id: string,
): Promise<{ session: Session; history: History }> {
  return withUserStore(io, flags, false, async (store, userId) => {
    const session = await findSession(store, id, userId);
    return { session, history: await readHistory(store, session.id) };
  });
}

/** Renames a session (the title made one line of at most 200 characters); a usage error for an empty title. */
export async function renameSession(
  io: RuntimeIo,
  flags: Flags,
  id: string,
  raw: string,
): Promise<{ session: Session; title: string }> {
  const title = oneLine(raw, 200);
  if (!title) throw new UsageError('the title is empty. Usage: birdie sessions rename ID TITLE');
  return withUserStore(io, flags, true, async (store, userId) => {
    const session = await findSession(store, id, userId);
    await store.sessions.rename(session.id, userId, title);
    return { session, title };
  });
}

/**
 * Deletes a session of `userId` (history, grants, run log) and its data folder. A session already gone (an empty
 * one is discarded when left) only has its folder removed.
 */
export async function removeSession(
  store: Store,
  env: NodeJS.ProcessEnv,
  sessionId: string,
  userId: string,
): Promise<void> {
  if (await store.sessions.get(sessionId, userId)) await store.sessions.delete(sessionId, userId);
  await removeSessionDir(env, sessionId);
}

/** Deletes the user's session `id` (see `removeSession`); returns it. */
export async function deleteSession(io: RuntimeIo, flags: Flags, id: string): Promise<Session> {
  return withUserStore(io, flags, true, async (store, userId) => {
    const session = await findSession(store, id, userId);
    await removeSession(store, io.env, session.id, userId);
    return session;
  });
}

/**
 * Repairs a session: it continues from its last good step. Damaged records (and those written after the damage) are
 * set aside in the store's quarantine, not deleted, so nothing is lost that could still be read by hand.
 */
export async function repairSession(
  io: RuntimeIo,
  flags: Flags,
  id: string,
): Promise<{ session: Session; report: RepairReport }> {
  return withUserStore(io, flags, true, async (store, userId) => {
    const session = await findSession(store, id, userId);
    return { session, report: await store.sessions.repair(session.id, userId) };
  });
}
