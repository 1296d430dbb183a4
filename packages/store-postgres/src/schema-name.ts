import { StoreError } from '@birdie/store/backend';
import type { Timeouts } from './timeouts.js';

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The schema of birdie's tables (default `birdie`), checked before any connection: PostgreSQL reserves names
 * starting with `pg_` for its own schemas and refuses to create one ("unacceptable schema name").
 */
export function checkSchema(schema = 'birdie'): string {
  if (!SCHEMA.test(schema)) {
    throw new StoreError(
      'invalid-argument',
      `schema must be 1-63 of [a-z0-9_], starting with a letter or _, got ${JSON.stringify(schema)}`,
    );
  }
  if (schema.startsWith('pg_')) {
    throw new StoreError(
      'invalid-argument',
      `schema must not start with pg_ (PostgreSQL reserves that prefix for its own schemas), got ${JSON.stringify(schema)}`,
    );
  }
  return schema;
}

/** The timeouts an options object sets (the others keep their defaults). */
export function timeoutsOf(options: {
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  readyTimeoutMs?: number;
}): Partial<Timeouts> {
  const out: Partial<Timeouts> = {};
  if (options.connectTimeoutMs !== undefined) out.connectMs = options.connectTimeoutMs;
  if (options.queryTimeoutMs !== undefined) out.queryMs = options.queryTimeoutMs;
  if (options.readyTimeoutMs !== undefined) out.readyMs = options.readyTimeoutMs;
  return out;
}
