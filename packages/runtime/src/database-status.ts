import { chooseDatabase } from './database.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { isStoreErrorLike, storeFailure } from './store-failure.js';
import { openUserStore } from './user-store.js';

/** The database birdie would use and its schema version (`birdie db status`). */
export interface DatabaseStatus {
  kind: 'sqlite' | 'postgres';
  /** The SQLite file, or the PostgreSQL URL without its password. */
  location: string;
  schema?: string;
  /** PostgreSQL: migrations applied, and known to this birdie. */
  current?: number;
  latest?: number;
  /** Migrations not applied yet (none after `apply`). */
  pending: string[];
}

/**
 * The schema status of the database the config and environment choose; with `apply`, after applying what is pending
 * (PostgreSQL: in one transaction, under an advisory lock). A SQLite file migrates whenever birdie opens it, so
 * opening it is both its status and its migration. Store failures are `RuntimeError`s.
 */
export async function databaseStatus(io: RuntimeIo, flags: Flags, apply: boolean): Promise<DatabaseStatus> {
  const choice = await chooseDatabase(io, flags);
  if (choice.kind === 'sqlite') {
    const store = await openUserStore(io, flags);
    try {
      return { kind: 'sqlite', location: store.location, pending: [] };
    } finally {
      await store.close();
    }
  }
  const { migratePostgres, postgresMigrationStatus } = await import('@birdie/store-postgres');
  try {
    const options = { url: choice.url, schema: choice.schema, ...choice.timeouts };
    const s = apply ? await migratePostgres(options) : await postgresMigrationStatus(options);
    return {
      kind: 'postgres',
      location: redact(choice.url),
      schema: s.schema,
      current: s.current,
      latest: s.latest,
      pending: s.pending,
    };
  } catch (error) {
    throw isStoreErrorLike(error) ? storeFailure(error) : error;
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}
