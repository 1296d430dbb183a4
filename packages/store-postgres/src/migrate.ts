import { Db } from './db.js';
import { type MigrationStatus, migrate, migrationStatus } from './migrations.js';
import { redactUrl } from './pg-errors.js';

/** `birdie db migrate`: applies the pending migrations to `schema` (default `birdie`) and returns the status after. */
export async function migratePostgres(options: { url: string; schema?: string }): Promise<MigrationStatus> {
  return withDb(options, (db) => migrate(db));
}

/** `birdie db status`: which migrations `schema` (default `birdie`) has, without changing anything. */
export async function postgresMigrationStatus(options: {
  url: string;
  schema?: string;
}): Promise<MigrationStatus> {
  return withDb(options, (db) => migrationStatus(db));
}

async function withDb<T>(options: { url: string; schema?: string }, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = new Db({ url: options.url, max: 1 }, options.schema ?? 'birdie', redactUrl(options.url));
  try {
    return await fn(db);
  } catch (error) {
    throw db.map(error);
  } finally {
    await db.close();
  }
}
