import { Db } from './db.js';
import { type MigrationStatus, migrate, migrationStatus } from './migrations.js';
import { redactUrl } from './pg-errors.js';
import { checkSchema, timeoutsOf } from './schema-name.js';

/** Where, and how long to wait for the server (as `openPostgresStore`'s options of the same names). */
export interface MigrateOptions {
  url: string;
  schema?: string;
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
}

/** `birdie db migrate`: applies the pending migrations to `schema` (default `birdie`) and returns the status after. */
export async function migratePostgres(options: MigrateOptions): Promise<MigrationStatus> {
  return withDb(options, (db) => migrate(db));
}

/** `birdie db status`: which migrations `schema` (default `birdie`) has, without changing anything. */
export async function postgresMigrationStatus(options: MigrateOptions): Promise<MigrationStatus> {
  return withDb(options, (db) => migrationStatus(db));
}

async function withDb<T>(options: MigrateOptions, fn: (db: Db) => Promise<T>): Promise<T> {
  const schema = checkSchema(options.schema);
  const db = new Db(
    { url: options.url, max: 1, timeouts: timeoutsOf(options) },
    schema,
    redactUrl(options.url),
  );
  try {
    return await fn(db);
  } catch (error) {
    throw db.map(error);
  } finally {
    await db.close();
  }
}
