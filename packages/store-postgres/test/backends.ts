// The table of back ends the contract tests run against: the SQLite store and the PostgreSQL store, each giving a
// fresh, empty store per test (a new folder; a new schema on the run's server).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '@birdie/store';
import Database from 'better-sqlite3';
import pg from 'pg';
import { inject } from 'vitest';
import { openPostgresStore } from '../src/index.js';

export interface BackendEnv {
  /** Another store over the same data (for leases, another process). */
  open(): Promise<Store>;
  /** A raw statement on the same data (`?` placeholders), for what only a damaged or foreign writer does. */
  exec(sql: string, params?: unknown[]): Promise<void>;
  /** One value from a raw query. */
  one<T>(sql: string, params?: unknown[]): Promise<T | undefined>;
  /** ES module lines for a child process that leave the opened store in `store` (the built packages). */
  childOpen: string;
  /** A temporary folder of this test (scripts, effect files); removed by cleanup. */
  dir: string;
  cleanup(): Promise<void>;
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  fresh(): Promise<BackendEnv>;
}

const STORE_DIST = new URL('../../store/dist/index.js', import.meta.url).href;
const PG_DIST = new URL('../dist/index.js', import.meta.url).href;

const sqlite: Backend = {
  name: 'sqlite',
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'birdie-contract-'));
    const stores: Store[] = [];
    const withDb = <T>(fn: (db: Database.Database) => T): T => {
      const db = new Database(join(dir, 'birdie.db'));
      try {
        return fn(db);
      } finally {
        db.close();
      }
    };
    return {
      async open() {
        const store = openStore({ home: dir });
        stores.push(store);
        return store;
      },
      async exec(sql, params = []) {
        withDb((db) => db.prepare(sql).run(...params));
      },
      async one(sql, params = []) {
        return withDb((db) => {
          const row = db.prepare(sql).get(...params) as Record<string, unknown> | undefined;
          return row === undefined ? undefined : (Object.values(row)[0] as never);
        });
      },
      childOpen: `const { openStore } = await import(${JSON.stringify(STORE_DIST)});\nconst store = openStore({ home: ${JSON.stringify(dir)} });`,
      dir,
      async cleanup() {
        for (const s of stores) await s.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

let schemas = 0;
const postgres: Backend = {
  name: 'postgres',
  async fresh() {
    const url = inject('postgresUrl');
    const schema = `t${process.pid}_${++schemas}`;
    const dir = mkdtempSync(join(tmpdir(), 'birdie-contract-pg-'));
    const stores: Store[] = [];
    const raw = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
    const numbered = (sql: string) => {
      let n = 0;
      return sql.replace(/\?/g, () => `$${++n}`);
    };
    return {
      async open() {
        const store = await openPostgresStore({ url, schema, maxConnections: 4 });
        stores.push(store);
        return store;
      },
      async exec(sql, params = []) {
        await raw.query(numbered(sql), params);
      },
      async one(sql, params = []) {
        const { rows } = await raw.query(numbered(sql), params);
        return rows[0] === undefined ? undefined : (Object.values(rows[0])[0] as never);
      },
      childOpen: `const { openPostgresStore } = await import(${JSON.stringify(PG_DIST)});\nconst store = await openPostgresStore({ url: ${JSON.stringify(url)}, schema: ${JSON.stringify(schema)}, maxConnections: 2 });`,
      dir,
      async cleanup() {
        for (const s of stores) await s.close();
        await raw.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await raw.end();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** Every back end, for `describe.each(backends)`. */
export const backends: Backend[] = [sqlite, postgres];
