import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createAdmissions } from './admissions.js';
import { BirdieCheckpointer } from './checkpointer/saver.js';
import { type Db, readOnlyError, stateOf } from './db.js';
import { createDeliveries } from './deliveries.js';
import { runDoctor } from './doctor.js';
import { StoreError } from './errors.js';
import { createFiles } from './files.js';
import { createGrants } from './grants.js';
import type { RunJournal, RunsRepo, Store, SyncOf } from './interface.js';
import { Leases } from './leases.js';
import { createMemory } from './memory.js';
import { openDatabase } from './open.js';
import { createOwnership } from './owner.js';
import { checkReadiness } from './readiness.js';
import { repairSession } from './repair.js';
import { createRuns, type SyncRuns } from './runs.js';
import { MIGRATIONS } from './schema.js';
import { createSessions } from './sessions.js';
import { toStoreError } from './sqlite-errors.js';
import { createTasks } from './tasks.js';
import { createTokens } from './tokens.js';
import { createTriggers } from './triggers.js';
import { createTrust } from './trust.js';
import { createTurnLog } from './turn-log.js';

export interface StoreOptions {
  /** Folder of birdie's data. Default: `BIRDIE_HOME`, else `~/.birdie`. */
  home?: string;
  /** The database file. Default: `<home>/birdie.db`. */
  file?: string;
}

/** The SQLite store: the interface, plus the file it keeps everything in. */
export interface SqliteStore extends Store {
  readonly kind: 'sqlite';
  /** Absolute path of the SQLite file (also `location`). */
  readonly file: string;
}

/** Opens (creating and migrating as needed) the store's SQLite file. */
export function openStore(options: StoreOptions = {}): SqliteStore {
  // An empty BIRDIE_HOME is unset (as the CLI reads it); an empty or non-string option is a mistake, not the cwd.
  const home = resolve(
    pathOption(options, 'home', 'a folder') ?? (process.env.BIRDIE_HOME || join(homedir(), '.birdie')),
  );
  const file = resolve(pathOption(options, 'file', 'a file') ?? join(home, 'birdie.db'));
  const db: Db = openDatabase(file, dirname(file));
  let store: SqliteStore;
  try {
    store = assemble(db, file);
  } catch (error) {
    db.close();
    const mapped = toStoreError(error, stateOf(db));
    throw mapped;
  }
  reapOnOpen(store);
  return store;
}

function pathOption(options: StoreOptions, name: 'home' | 'file', what: string): string | undefined {
  const value: unknown = options[name];
  if (value === undefined) return undefined;
  if (typeof value === 'string' && value !== '') return value;
  const shown = typeof value === 'string' ? '""' : value === null ? 'null' : `a ${typeof value}`;
  throw new StoreError('invalid-argument', `${name} must be the path of ${what}, not ${shown}`);
}

/**
 * A run left `running` by a process that is gone becomes `died` as soon as any process opens the store. Best effort:
 * a store that only reads, or a lock held for too long, leaves it for the next opening.
 */
function reapOnOpen(store: SqliteStore): void {
  if (store.readOnly) return;
  store.runs.reap().catch(() => undefined);
}

function assemble(db: Db, file: string): SqliteStore {
  const leases = new Leases(db);
  const owners = createOwnership(db);
  const checkpointer = new BirdieCheckpointer(db, { fence: (threadId) => leases.fence(threadId) });
  const guard = guardFor(db);
  const assertWritable = () => {
    if (!db.open) throw new StoreError('closed', 'the store is closed');
    const state = stateOf(db);
    if (state.readOnly) throw readOnlyError(state);
  };
  return {
    kind: 'sqlite',
    file,
    location: file,
    get readOnly() {
      return stateOf(db).readOnly;
    },
    assertWritable,
    sessions: guard(
      createSessions(db, {
        owners,
        leases,
        deleteThread: (threadId) => checkpointer.deleteThreadSync(threadId),
        repair: (id) => repairSession({ db, saver: checkpointer, leases }, id),
      }),
    ),
    grants: guard(createGrants(db, owners)),
    memory: guard(createMemory(db)),
    runs: guardRuns(guard, createRuns(db, owners, leases)),
    leases: guard(leases.repo()),
    triggers: guard(createTriggers(db, leases)),
    tasks: guard(createTasks(db)),
    trust: guard(createTrust(db)),
    files: guard(createFiles(db, owners, leases)),
    tokens: guard(createTokens(db)),
    turns: guard(createTurnLog(db, owners)),
    deliveries: guard(createDeliveries(db)),
    admissions: guard(createAdmissions(db)),
    checkpointer,
    doctor: guard<Pick<Store, 'doctor'>>({ doctor: () => runDoctor(db, checkpointer) }).doctor,
    ready() {
      return checkReadiness(
        guard<{ probe(): Promise<void> }>({ probe: () => checkSchemaVersion(db, file) }).probe,
        assertWritable,
      );
    },
    close() {
      if (db.open) {
        leases.releaseAll();
        db.close();
      }
      return Promise.resolve();
    },
  };
}

/**
 * The readiness probe's read: the file's schema version, which another birdie (a newer one, a restore) may have
 * changed since this store opened it.
 */
function checkSchemaVersion(db: Db, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version === MIGRATIONS.length) return;
  throw new StoreError(
    'migration-failed',
    `${file} has schema version ${version}, this birdie needs ${MIGRATIONS.length}`,
    {
      file,
      hint:
        version > MIGRATIONS.length
          ? 'upgrade birdie on this machine'
          : 'restart birdie: it migrates the file when it opens it',
    },
  );
}

/** The journal a run hands out is guarded like the repositories. */
function guardRuns(guard: Guard, runs: SyncRuns): RunsRepo {
  const guarded = guard<Omit<RunsRepo, 'journal'> & { journal(runId: number): Promise<SyncOf<RunJournal>> }>(
    runs,
  );
  return {
    ...guarded,
    journal: (runId) => guarded.journal(runId).then((journal) => guard<RunJournal>(journal)),
  };
}

type Guard = <T extends object>(repo: SyncOf<T>) => T;

/**
 * Turns a synchronous repository into the promise-returning interface: a call after close rejects
 * with `StoreError('closed')`, a result becomes one resolved promise (no await chain on hot paths such
 * as the tool journal), and whatever SQLite or the file system throws leaves as a rejected `StoreError`.
 */
function guardFor(db: Db): Guard {
  const map = (error: unknown) => toStoreError(error, stateOf(db));
  return <T extends object>(repo: SyncOf<T>): T => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(repo)) {
      if (typeof value !== 'function') {
        out[key] = value;
        continue;
      }
      out[key] = (...args: unknown[]) => {
        if (!db.open) return Promise.reject(new StoreError('closed', 'the store is closed'));
        let result: unknown;
        try {
          result = value.apply(repo, args);
        } catch (error) {
          return Promise.reject(map(error));
        }
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            throw map(error);
          });
        }
        return Promise.resolve(result);
      };
    }
    return out as T;
  };
}
