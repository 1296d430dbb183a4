import type { Store, StoreErrorCode } from '@birdie/store';

/** Why a worker is not ready: the store's failure code, or `shutting-down` while it drains. */
export type NotReadyCode = StoreErrorCode | 'shutting-down';

export type ReadyBody =
  | { status: 'ready'; version: string; store: Store['kind'] }
  | {
      status: 'not-ready';
      version: string;
      store: Store['kind'];
      reason: { code: NotReadyCode; message: string };
    };

/**
 * `GET /v1/ready`, the readiness probe (`/v1/health` stays the liveness one): 200 while this worker can serve
 * requests (the store reachable, its schema current, writable; the worker not shutting down), else 503 with the
 * reason. It needs no token, so the reason is worded here and carries nothing internal (no database address).
 */
export async function readiness(
  store: Store,
  options: { accepting: boolean; version: string },
): Promise<{ status: 200 | 503; body: ReadyBody }> {
  const { version } = options;
  const base = { version, store: store.kind };
  if (!options.accepting)
    return notReady(base, 'shutting-down', 'this worker is shutting down; send requests to another');
  const found = await store.ready();
  if (found.ready) return { status: 200, body: { status: 'ready', ...base } };
  return notReady(base, found.code, MESSAGES[found.code] ?? 'the store cannot take requests now');
}

function notReady(
  base: { version: string; store: Store['kind'] },
  code: NotReadyCode,
  message: string,
): { status: 503; body: ReadyBody } {
  return { status: 503, body: { status: 'not-ready', ...base, reason: { code, message } } };
}

const MESSAGES: Partial<Record<StoreErrorCode, string>> = {
  unavailable: 'the store cannot be reached',
  'migration-failed':
    "the store's schema is not the version this server needs (birdie db migrate, or upgrade)",
  'read-only': 'the store only reads now',
  'disk-full': "the store's disk is full",
  malformed: 'the store reports damaged data',
  closed: 'the store is closed',
};
