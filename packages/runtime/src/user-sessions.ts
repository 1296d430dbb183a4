import type { Session } from '@birdie/store';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { checkUserId, userIdOf } from './runtime.js';
import { openUserStore } from './user-store.js';

/** The user's sessions, the one used last first, read without opening a whole runtime (no model, no registry). */
export async function userSessions(io: RuntimeIo, flags: Flags): Promise<Session[]> {
  const userId = await checkUserId(userIdOf(io, flags));
  const store = await openUserStore(io);
  try {
    return await store.sessions.list(userId);
  } finally {
    await store.close();
  }
}

/**
 * The session `birdie --continue` goes on with: the one used last (its newest turn or rename), not the one made last —
 * a user who went back to an older conversation continues that one. A usage error when there is none.
 */
export async function latestSessionId(io: RuntimeIo, flags: Flags): Promise<string> {
  // The store lists the session used last first (on a tie of last use, the newer one).
  const [latest] = await userSessions(io, flags);
  if (!latest) throw new UsageError('no session to continue yet. Start one with `birdie`.');
  return latest.id;
}
