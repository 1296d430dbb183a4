import { isStoreError } from '@birdie/store';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  MIGRATIONS,
  migratePostgres,
  openPostgresStore,
  type PostgresStore,
  postgresMigrationStatus,
} from '../src/index.js';

// What only the PostgreSQL back end has: migrations, the server's failures, a read-only server.
const url = inject('postgresUrl');
let admin: pg.Client;
let schemas = 0;
const fresh = () => `pgonly_${process.pid}_${++schemas}`;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin.end();
});

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isStoreError(error)) return error;
    throw error;
  }
  throw new Error('expected a StoreError');
}

describe('migrations', () => {
  it('run on open, once, even when several workers open at the same moment', async () => {
    const schema = fresh();
    const stores = await Promise.all(
      [1, 2, 3].map(() => openPostgresStore({ url, schema, maxConnections: 2 })),
    );
    const status = await stores[0]!.migrationStatus();
    expect(status).toMatchObject({
      schema,
      current: MIGRATIONS.length,
      latest: MIGRATIONS.length,
      pending: [],
    });
    expect(status.applied.map((m) => [m.version, m.name])).toEqual(MIGRATIONS.map((m, i) => [i + 1, m.name]));
    // The three stores work on the same tables.
    const session = await stores[1]!.sessions.create('alice');
    expect((await stores[2]!.sessions.get(session.id, 'alice'))?.id).toBe(session.id);
    for (const s of stores) await s.close();
  });

  it('can be left to `db migrate`: status reports, migrate applies, open without migrate refuses until then', async () => {
    const schema = fresh();
    expect(await postgresMigrationStatus({ url, schema })).toMatchObject({
      current: 0,
      pending: MIGRATIONS.map((m) => m.name),
    });
    const refused = await failure(openPostgresStore({ url, schema, migrate: false }));
    expect(refused.code).toBe('migration-failed');
    expect(refused.message).toContain(`schema ${schema}`);
    expect(refused.hint).toBe('run `birdie db migrate`');
    expect(await migratePostgres({ url, schema })).toMatchObject({ current: MIGRATIONS.length, pending: [] });
    const store = await openPostgresStore({ url, schema, migrate: false });
    expect(store.kind).toBe('postgres');
    await store.close();
  });

  it('refuse a schema newer than this package', async () => {
    const schema = fresh();
    await migratePostgres({ url, schema });
    await admin.query(
      `INSERT INTO ${schema}.birdie_migrations (version, name) VALUES (99, 'from the future')`,
    );
    const error = await failure(openPostgresStore({ url, schema }));
    expect(error.code).toBe('migration-failed');
    expect(error.message).toContain('newer than this birdie understands');
  });

  it('refuse a schema name that is not a plain identifier', async () => {
    expect((await failure(openPostgresStore({ url, schema: 'x; DROP TABLE y' }))).code).toBe(
      'invalid-argument',
    );
  });
});

describe('the server', () => {
  it('unreachable: `unavailable`, naming the server without its password', async () => {
    const error = await failure(
      openPostgresStore({ url: 'postgresql://birdie:s3cret-pass@/postgres?host=/nonexistent-birdie-socket' }),
    );
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('cannot reach the database server postgresql://birdie:***@');
    expect(error.message).not.toContain('s3cret-pass');
    expect(error.hint).toContain('BIRDIE_DATABASE_URL');
  });

  it('a missing database: `unavailable` with the fix', async () => {
    const missing = url.replace('/postgres?', '/no_such_db?');
    const error = await failure(openPostgresStore({ url: missing }));
    expect(error).toMatchObject({ code: 'unavailable' });
    expect(error.hint).toContain('create the database');
  });

  it('a read-only server: reads work, writes are `read-only` and the store says so', async () => {
    const schema = fresh();
    const writer = await openPostgresStore({ url, schema });
    const session = await writer.sessions.create('alice', { title: 'kept' });
    await writer.close();
    const role = `reader_${process.pid}`;
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    await admin.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await admin.query(`GRANT ALL ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
    await admin.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA ${schema} TO ${role}`);
    let store: PostgresStore | undefined;
    try {
      store = await openPostgresStore({ url: url.replace('birdie@', `${role}@`), schema });
      expect((await store.sessions.get(session.id, 'alice'))?.title).toBe('kept');
      const write = await failure(store.sessions.create('alice'));
      expect(write.code).toBe('read-only');
      expect(write.message).toContain('the server only accepts reads');
      expect(store.readOnly?.reason).toBe('read-only-server');
      // Known now: the next write is refused before it reaches the server.
      expect((await failure(store.sessions.rename(session.id, 'alice', 'x'))).code).toBe('read-only');
      const report = await store.doctor();
      expect(report.readOnly?.reason).toBe('read-only-server');
    } finally {
      await store?.close();
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
    }
  });

  it('after close, every call is `closed`', async () => {
    const store = await openPostgresStore({ url, schema: fresh() });
    await store.close();
    await store.close();
    expect((await failure(store.sessions.list('alice'))).code).toBe('closed');
    expect((await failure(store.checkpointer.getTuple({ configurable: { thread_id: 'x' } }))).code).toBe(
      'closed',
    );
  });
});

describe('public API', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'MIGRATIONS',
      'PostgresCheckpointer',
      'migratePostgres',
      'openPostgresStore',
      'postgresMigrationStatus',
    ]);
  });
});
