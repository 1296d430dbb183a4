import type { Grants, Store } from '@birdie/store';

/**
 * The policy asks for a session's grants synchronously and the store answers with promises: the grants are read into
 * this bridge when a turn takes a session up (`load`, again at every turn: another process may have changed them),
 * the policy's saves go to the store in order, as the session's own user, and `flush` waits for them and reports the
 * first failure.
 */
export function grantsBridge(store: Store, defaultUser: string) {
  const loaded = new Map<string, Grants>();
  const owners = new Map<string, string>();
  let writes: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  return {
    policyStore: {
      get: (sessionId: string) => loaded.get(sessionId),
      set: (sessionId: string, grants: Grants) => {
        loaded.set(sessionId, grants);
        const userId = owners.get(sessionId) ?? defaultUser;
        writes = writes
          .then(() => store.grants.set(sessionId, userId, grants))
          .catch((error: unknown) => {
            failure ??= { error };
          });
      },
    },
    async load(sessionId: string, userId: string): Promise<Grants> {
      await writes;
      const grants = await store.grants.get(sessionId, userId);
      loaded.set(sessionId, grants);
      owners.set(sessionId, userId);
      return grants;
    },
    /** Drops what was read of the session (its writes still go to the store, as its user). */
    forget(sessionId: string): void {
      loaded.delete(sessionId);
      owners.delete(sessionId);
    },
    async flush() {
      await writes;
      const first = failure;
      failure = undefined;
      if (first) throw first.error;
    },
  };
}
