import { isStoreError, type StoreErrorCode } from './errors.js';

/**
 * What `Store.ready()` finds: ready, or the failure that keeps the store from serving requests now, as the store's
 * error code and message (the message names the file or the server, without a password).
 */
export type StoreReadiness = { ready: true } | { ready: false; code: StoreErrorCode; reason: string };

/**
 * A readiness check shared by the back ends: `probe` reaches the data (one round trip) and throws a `StoreError` when
 * the schema is not the version this package needs; then the store must take writes. Never throws.
 */
export async function checkReadiness(
  probe: () => Promise<unknown>,
  assertWritable: () => void,
): Promise<StoreReadiness> {
  try {
    await probe();
    assertWritable();
    return { ready: true };
  } catch (error) {
    if (isStoreError(error)) return { ready: false, code: error.code, reason: error.message };
    return { ready: false, code: 'io', reason: error instanceof Error ? error.message : String(error) };
  }
}
