import type { Db } from './db.js';

/**
 * Wraps every method of a repository: a call after close rejects with `StoreError('closed')`, and whatever the
 * server or the network throws leaves as a `StoreError` (one mapping, in pg-errors.ts).
 */
export function guard<T extends object>(db: Db, repo: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(repo)) {
    if (typeof value !== 'function') {
      out[key] = value;
      continue;
    }
    out[key] = async (...args: unknown[]) => {
      try {
        db.ensureOpen();
        return await value.apply(repo, args);
      } catch (error) {
        throw db.map(error);
      }
    };
  }
  return out as T;
}
