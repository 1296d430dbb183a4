import type { AcquireOptions, SessionLease, Store } from '@birdie/store';
import { isStoreErrorLike, storeFailure } from './store-failure.js';

/**
 * A session's lease for a turn or a compaction. A session another process holds past the wait is the documented
 * `RuntimeError` `busy` (exit 3), with the store's `session-busy` error as its `cause`: a caller acts on
 * `isRuntimeError(e) && e.code === 'busy'` whatever store is underneath. Other failures pass through as they are.
 */
export async function acquireSessionLease(
  store: Pick<Store, 'leases'>,
  sessionId: string,
  options: AcquireOptions,
): Promise<SessionLease> {
  try {
    return await store.leases.acquire(sessionId, options);
  } catch (error) {
    throw isStoreErrorLike(error) && error.code === 'session-busy' ? storeFailure(error) : error;
  }
}
