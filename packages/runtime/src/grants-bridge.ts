import type { Grants, Store } from '@birdie/store';

/** What the bridge knows of one session's writes: what the store holds, and whether the last write failed. */
interface SessionWrites {
  /** The grants the store holds (read by `load`, or written); undefined: none known, the defaults. */
  saved: Grants | undefined;
  /** Writes queued and not settled yet. */
  pending: number;
  failure?: { error: unknown };
}

/**
 * The policy asks for a session's grants synchronously and the store answers with promises: the grants are read into
 * this bridge when a turn takes a session up (`load`, again at every turn: another process may have changed them),
 * the policy's saves go to the store in order, as the session's own user, and `flush` waits for them and reports the
 * session's failure.
 *
 * The policy keeps a change before the store has it (its `set` cannot wait). When the session's last write fails, the
 * bridge goes back to the grants the store holds and calls `rollBack` (the application makes the policy forget the
 * session, which then reads them from here again): a session never uses a grant that was not saved. When a later
 * write of the session succeeds, it carried the earlier change too, and nothing is rolled back or reported.
 */
export function grantsBridge(store: Store, defaultUser: string, rollBack: (sessionId: string) => void) {
  const loaded = new Map<string, Grants>();
  const owners = new Map<string, string>();
  const sessions = new Map<string, SessionWrites>();
  let writes: Promise<void> = Promise.resolve();

  const settled = (sessionId: string, entry: SessionWrites, grants: Grants, error?: { error: unknown }) => {
    entry.pending -= 1;
    if (error) entry.failure ??= error;
    else entry.saved = grants;
    if (entry.pending > 0) return;
    if (!error) {
      // The store holds what memory holds, the earlier changes included.
      entry.failure = undefined;
      return;
    }
    // Back to what the store holds (unless the session was forgotten meanwhile), and the policy reads it from here.
    if (loaded.has(sessionId)) {
      if (entry.saved) loaded.set(sessionId, entry.saved);
      else loaded.delete(sessionId);
    }
    rollBack(sessionId);
  };

  return {
    policyStore: {
      get: (sessionId: string) => loaded.get(sessionId),
      set: (sessionId: string, grants: Grants) => {
        let entry = sessions.get(sessionId);
        if (!entry) {
          entry = { saved: loaded.get(sessionId), pending: 0 };
          sessions.set(sessionId, entry);
        }
        const session = entry;
        session.pending += 1;
        loaded.set(sessionId, grants);
        const userId = owners.get(sessionId) ?? defaultUser;
        writes = writes.then(async () => {
          try {
            await store.grants.set(sessionId, userId, grants);
          } catch (error) {
            settled(sessionId, session, grants, { error });
            return;
          }
          settled(sessionId, session, grants);
        });
      },
    },
    async load(sessionId: string, userId: string): Promise<Grants> {
      await writes;
      const grants = await store.grants.get(sessionId, userId);
      loaded.set(sessionId, grants);
      owners.set(sessionId, userId);
      const entry = sessions.get(sessionId);
      if (entry) entry.saved = grants;
      else sessions.set(sessionId, { saved: grants, pending: 0 });
      return grants;
    },
    /** Drops what was read of the session (its writes still go to the store, as its user). */
    forget(sessionId: string): void {
      loaded.delete(sessionId);
      owners.delete(sessionId);
      if (sessions.get(sessionId)?.pending === 0) sessions.delete(sessionId);
    },
    /**
     * Waits until the session has no write in flight (a change queued meanwhile carries the earlier ones: when it saves,
     * they are saved) and throws why its grants were not saved (its change is rolled back by then); without a session,
     * until no session has one, and the first failure of any. A failure is reported once.
     */
    async flush(sessionId?: string) {
      const busy = () =>
        sessionId === undefined
          ? [...sessions.values()].some((entry) => entry.pending > 0)
          : (sessions.get(sessionId)?.pending ?? 0) > 0;
      do await writes;
      while (busy());
      const failed = sessionId === undefined ? [...sessions.values()] : [sessions.get(sessionId)];
      const first = failed.find((entry) => entry?.failure)?.failure;
      for (const entry of failed) if (entry) entry.failure = undefined;
      for (const [id, entry] of sessions) if (entry.pending === 0 && !loaded.has(id)) sessions.delete(id);
      if (first) throw first.error;
    },
  };
}
