import { packText } from '@birdie/store/backend';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { MIGRATIONS } from '../src/index.js';

/**
 * For the upgrade tests: a client on the test server, opened before the file's tests and closed after them, that
 * builds a database as an earlier release left it and writes its rows by hand.
 */
export function useAdminClient(): { readonly client: pg.Client } {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  beforeAll(() => client.connect());
  afterAll(() => client.end());
  return { client };
}

/** `schema`, created, with the migrations table and the first `version` migrations applied; the search path set to it. */
export async function schemaAtMigration(admin: pg.Client, schema: string, version: number): Promise<void> {
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.query(`SET search_path = ${schema}`);
  await admin.query(
    'CREATE TABLE birdie_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const [i, m] of MIGRATIONS.slice(0, version).entries()) {
    await admin.query(m.sql);
    await admin.query('INSERT INTO birdie_migrations (version, name) VALUES ($1, $2)', [i + 1, m.name]);
  }
}

/** A checkpoint's packed body in the record format of those releases (format 4). */
export const packedBody = (ts: string, step: number, vals: object, cv: object) =>
  packText(
    `${JSON.stringify({ v: 4, ts, cv, vs: {}, vals })}\n${JSON.stringify({ source: 'loop', step, parents: {} })}`,
  );
