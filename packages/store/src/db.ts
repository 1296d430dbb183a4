import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { diskFullError } from './disk-space.js';
import { isBusyError, StoreError } from './errors.js';
import type { ReadOnlyState } from './interface.js';

export type Db = Database.Database;

export type { ReadOnlyReason, ReadOnlyState } from './interface.js';

/** What the store knows about its connection beyond better-sqlite3's handle. */
export interface DbState {
  file: string;
  dir: string;
  readOnly?: ReadOnlyState;
}

const states = new WeakMap<Db, DbState>();

export function attachState(db: Db, state: DbState): void {
  states.set(db, state);
}

export function stateOf(db: Db): DbState {
  let state = states.get(db);
  if (!state) {
    // A connection the store did not open (a checkpointer built by hand): describe it by its name.
    state = { file: db.name, dir: dirname(db.name) };
    states.set(db, state);
  }
  return state;
}

/** How long one statement waits for another process's lock before SQLite gives up. */
export const BUSY_TIMEOUT_MS = 5_000;
/** Extra attempts on top of the busy timeout, for the cases SQLite does not wait for itself. */
const BUSY_RETRIES = 8;

/** The error every write of a read-only store throws: names the file, the reason and the fix. */
export function readOnlyError(state: DbState): StoreError {
  const ro = state.readOnly!;
  if (ro.reason === 'disk-full') return diskFullError(state.file, state.dir);
  return new StoreError('read-only', `cannot write ${state.file}: ${ro.message}`, {
    file: state.file,
    hint: ro.hint,
  });
}

/**
 * Runs `fn` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so a
 * concurrent writer makes us wait (busy_timeout) instead of failing mid-transaction.
 * Every write of the store goes through here, so a read-only store refuses it in one place.
 */
export function immediate<T>(db: Db, fn: () => T): T {
  const state = states.get(db);
  if (state?.readOnly) throw readOnlyError(state);
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
