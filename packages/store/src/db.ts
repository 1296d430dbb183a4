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

/**
 * How long a write waits, in all, for another process's lock before the store gives up with `locked`: SQLite's
 * busy timeout for one statement, and the whole budget of the retries below, so the wait stays this bound however
 * often the lock is met.
 */
export const BUSY_TIMEOUT_MS = 5_000;
/** Extra attempts within the busy timeout, for the lock errors SQLite returns at once instead of waiting. */
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
    const epoch: Epoch = { version: undefined, count: 0, read: db.prepare('PRAGMA data_version').pluck() };
    epochs.set(db, epoch);
    run = db.transaction((body: () => unknown) => {
      const version = epoch.read.get() as number;
      if (version !== epoch.version) {
        epoch.version = version;
        epoch.count += 1;
      }
      return body();
    });
    runners.set(db, run);
  }
  const tx = run;
  return retryBusy(db, () => {
    try {
      return tx.immediate(fn) as T;
    } catch (error) {
      // Rolled back: whatever a cache learnt inside the transaction may not be in the file.
      const epoch = epochs.get(db);
      if (epoch) epoch.count += 1;
      throw error;
    }
  });
}

const runners = new WeakMap<Db, Database.Transaction<(body: () => unknown) => unknown>>();

/**
 * Per connection: `PRAGMA data_version` as the last write transaction read it (it changes when another connection,
 * of this process or another, commits), and how often it changed or a transaction of ours rolled back.
 */
interface Epoch {
  version: number | undefined;
  count: number;
  read: Database.Statement<[], unknown>;
}

const epochs = new WeakMap<Db, Epoch>();

/**
 * Inside a write transaction (`immediate`): a number that stays the same for as long as the file holds nothing this
 * connection did not see committed, by its own hand or by another. A cache of rows read or written inside write
 * transactions is valid while this number is the one it was filled under; one that differs means another connection
 * committed (it may have changed any row) or a transaction of ours rolled back (what it wrote is gone).
 * Writes this connection makes outside `immediate` are not counted: their writer keeps its own cache right.
 */
export function writeEpoch(db: Db): number {
  return epochs.get(db)?.count ?? -1;
}

/**
 * Retries `fn` while SQLite reports a lock, within one `BUSY_TIMEOUT_MS` in all; after that, throws
 * `StoreError('locked')` naming `db`'s file. Each retry's statement waits only for what is left of the bound (before,
 * every retry waited the whole busy timeout again: 8 retries made a held lock a 45-second silence).
 */
export function retryBusy<T>(db: Db, fn: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  let shortened = false;
  try {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return fn();
      } catch (error) {
        if (!isBusyError(error)) throw error;
        const left = deadline - Date.now();
        if (attempt >= BUSY_RETRIES || left <= 0) throw lockedError(stateOf(db), error);
        sleepSync(Math.min(20 * 2 ** Math.min(attempt, 5), left));
        db.pragma(`busy_timeout = ${Math.max(1, deadline - Date.now())}`);
        shortened = true;
      }
    }
  } finally {
    if (shortened) db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

/** Another process kept `state.file`'s lock for the whole busy timeout: the file, the reason, what to do. */
export function lockedError(state: DbState, cause: unknown): StoreError {
  const { file } = state;
  return new StoreError(
    'locked',
    `${file} is locked by another process, which held it for more than ${BUSY_TIMEOUT_MS / 1000} s; birdie stopped waiting and wrote nothing`,
    {
      cause,
      file,
      hint: `another birdie or a program such as sqlite3 is writing it; let that finish or stop it, then try again; \`fuser ${file}\` lists the processes that have it open`,
    },
  );
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
