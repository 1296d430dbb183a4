import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStoreError, openStore, type SqliteStore as Store, StoreError } from '../src/index.js';
import { tempHome } from './helpers.js';

let home: ReturnType<typeof tempHome>;
let store: Store;

beforeEach(async () => {
  home = tempHome();
  store = openStore({ home: join(home.dir, 'nested', '.birdie') });
});
afterEach(async () => {
  await store.close();
  home.cleanup();
});

async function codeOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return (error as StoreError).code;
  }
  return undefined;
}

describe('openStore', () => {
  it('creates the folder 0700 and the file 0600 under home', async () => {
    expect(store.file).toBe(join(home.dir, 'nested', '.birdie', 'birdie.db'));
    expect(statSync(join(home.dir, 'nested', '.birdie')).mode & 0o777).toBe(0o700);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    await store.sessions.create('alice');
    expect(statSync(`${store.file}-wal`).mode & 0o777).toBe(0o600);
  });

  it('honours BIRDIE_HOME and an explicit file', async () => {
    const previous = process.env.BIRDIE_HOME;
    process.env.BIRDIE_HOME = join(home.dir, 'env-home');
    try {
      const fromEnv = openStore();
      expect(fromEnv.file).toBe(join(home.dir, 'env-home', 'birdie.db'));
      fromEnv.close();
    } finally {
      if (previous === undefined) delete process.env.BIRDIE_HOME;
      else process.env.BIRDIE_HOME = previous;
    }
    const explicit = openStore({ file: join(home.dir, 'elsewhere', 'x.db') });
    expect(explicit.file).toBe(join(home.dir, 'elsewhere', 'x.db'));
    explicit.close();
  });

  it('refuses a file whose schema is newer than this version', async () => {
    const Database = (await import('better-sqlite3')).default;
    const file = join(home.dir, 'future.db');
    const db = new Database(file);
    db.pragma('user_version = 999');
    db.close();
    expect(await codeOf(() => openStore({ file }))).toBe('migration-failed');
  });

  it('reports use after close as StoreError closed', async () => {
    await store.close();
    expect(await codeOf(() => store.sessions.list('alice'))).toBe('closed');
    await expect(store.checkpointer.getTuple({ configurable: { thread_id: 'x' } })).rejects.toMatchObject({
      code: 'closed',
    });
    await store.close();
  });
});

describe('isStoreError', () => {
  it('checks the class and, optionally, the code', async () => {
    const error = new StoreError('session-busy', 'x');
    expect(isStoreError(error)).toBe(true);
    expect(isStoreError(error, 'session-busy', 'lease-lost')).toBe(true);
    expect(isStoreError(error, 'read-only')).toBe(false);
    expect(isStoreError(new Error('x'))).toBe(false);
  });
});

describe('public API', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'BirdieCheckpointer',
      'RUN_STATUSES',
      'SESSION_FILE_LIMITS',
      'StoreError',
      'isStoreError',
      'openStore',
      'validateLeaseKey',
      'validateSessionId',
      'validateUserId',
    ]);
  });
});
