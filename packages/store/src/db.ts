import { closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { isBusyError, StoreError } from './errors.js';
import { ensureFolder } from './folder.js';
import { MIGRATIONS } from './schema.js';

export type Db = Database.Database;

/** How long one statement waits for another process's lock before SQLite gives up. */
const BUSY_TIMEOUT_MS = 5_000;
/** Extra attempts on top of the busy timeout, for the cases SQLite does not wait for itself. */
const BUSY_RETRIES = 8;

export function openDatabase(file: string, dir: string): Db {
  ensureFolder(dir);
  let db: Db;
  try {
    // Create the file 0600 before SQLite opens it; SQLite gives -wal and -shm the same mode.
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    db = new Database(file);
  } catch (cause) {
    throw new StoreError('io', `cannot open ${file}`, { cause });
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    retryBusy(() => db.pragma('journal_mode = WAL'));
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function migrate(db: Db): void {
  const current = () => db.pragma('user_version', { simple: true }) as number;
  if (current() === MIGRATIONS.length) return;
  try {
    immediate(db, () => {
      const from = current();
      if (from > MIGRATIONS.length) {
        throw new StoreError(
          'migration-failed',
          `database schema version ${from} is newer than this birdie understands (${MIGRATIONS.length})`,
        );
      }
      for (let v = from; v < MIGRATIONS.length; v += 1) db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${MIGRATIONS.length}`);
    });
  } catch (cause) {
    if (cause instanceof StoreError) throw cause;
    throw new StoreError('migration-failed', `cannot migrate ${db.name}`, { cause });
  }
}

/**
 * Runs `fn` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so a
 * concurrent writer makes us wait (busy_timeout) instead of failing mid-transaction.
 */
export function immediate<T>(db: Db, fn: () => T): T {
  let run = runners.get(db);
  if (!run) {
    // One wrapper per connection: better-sqlite3 compiles a transaction function on creation.
    run = db.transaction((body: () => unknown) => body());
    runners.set(db, run);
  }
  const tx = run;
  return retryBusy(() => tx.immediate(fn) as T);
}

const runners = new WeakMap<Db, Database.Transaction<(body: () => unknown) => unknown>>();

/** Retries `fn` while SQLite reports a lock; after that, throws `StoreError('locked')`. */
export function retryBusy<T>(fn: () => T): T {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return fn();
    } catch (error) {
      if (!isBusyError(error)) throw error;
      if (attempt >= BUSY_RETRIES) {
        throw new StoreError('locked', 'the database stayed locked by another process', { cause: error });
      }
      sleepSync(20 * 2 ** Math.min(attempt, 5));
    }
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
