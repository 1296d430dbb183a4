import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { BirdieCheckpointer } from './checkpointer/saver.js';
import { type Db, type ReadOnlyState, readOnlyError, stateOf } from './db.js';
import { type DoctorReport, runDoctor } from './doctor.js';
import { StoreError } from './errors.js';
import { createGrants, type GrantsRepo } from './grants.js';
import { Leases, type LeasesRepo } from './leases.js';
import { createMemory, type MemoryRepo } from './memory.js';
import { openDatabase } from './open.js';
import { createOwnership } from './owner.js';
import { repairSession } from './repair.js';
import { createRuns, type RunsRepo } from './runs.js';
import { createSessions, type Sessions } from './sessions.js';
import { toStoreError } from './sqlite-errors.js';
import { createTrust, type TrustRepo } from './trust.js';

export interface StoreOptions {
  /** Folder of birdie's data. Default: `BIRDIE_HOME`, else `~/.birdie`. */
  home?: string;
  /** The database file. Default: `<home>/birdie.db`. */
  file?: string;
}

export interface Store {
  /** Absolute path of the SQLite file. */
  readonly file: string;
  /**
   * Set when the store only reads (the file or its folder is not writable, its file system is
   * read-only, or SQLite found it malformed): reads work, every write throws `StoreError('read-only')`.
   * A store that opened on a full disk reads too (`reason: 'disk-full'`); its writes throw `disk-full`.
   */
  readonly readOnly: ReadOnlyState | undefined;
  /**
   * Throws the error any write would throw now when the store only reads (`read-only`, or `disk-full`), so a caller
   * can stop before it starts something it cannot record; does nothing otherwise.
   */
  assertWritable(): void;
  readonly sessions: Sessions;
  readonly grants: GrantsRepo;
  readonly memory: MemoryRepo;
  readonly runs: RunsRepo;
  /** One writer per session. */
  readonly leases: LeasesRepo;
  /** Workspace trust decisions, by folder. */
  readonly trust: TrustRepo;
  /** LangGraph checkpointer over the same file; `thread_id` is the session id. */
  readonly checkpointer: BaseCheckpointSaver;
  /** Checks the whole file: SQLite's integrity check, then every stored record decoded. */
  doctor(): Promise<DoctorReport>;
  /** Releases this store's leases and closes the connection; later calls fail with `StoreError('closed')`. Idempotent. */
  close(): void;
}

/** Opens (creating and migrating as needed) the store's SQLite file. */
export function openStore(options: StoreOptions = {}): Store {
  const home = resolve(options.home ?? process.env.BIRDIE_HOME ?? join(homedir(), '.birdie'));
  const file = resolve(options.file ?? join(home, 'birdie.db'));
  const db: Db = openDatabase(file, dirname(file));
  try {
    return assemble(db, file);
  } catch (error) {
    db.close();
    const mapped = toStoreError(error, stateOf(db));
    throw mapped;
  }
}

function assemble(db: Db, file: string): Store {
  const leases = new Leases(db);
  const owners = createOwnership(db);
  const checkpointer = new BirdieCheckpointer(db, { fence: (threadId) => leases.fence(threadId) });
  const guard = guardFor(db);
  return {
    file,
    get readOnly() {
      return stateOf(db).readOnly;
    },
    assertWritable() {
      if (!db.open) throw new StoreError('closed', 'the store is closed');
      const state = stateOf(db);
      if (state.readOnly) throw readOnlyError(state);
    },
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
    trust: guard(createTrust(db)),
    checkpointer,
    doctor: guard({ doctor: () => runDoctor(db, checkpointer) }).doctor,
    close() {
      if (!db.open) return;
      leases.releaseAll();
      db.close();
    },
  };
}

/** The journal a run hands out is guarded like the repositories. */
function guardRuns(guard: ReturnType<typeof guardFor>, runs: RunsRepo): RunsRepo {
  const guarded = guard(runs);
  return { ...guarded, journal: (runId) => guard(guarded.journal(runId)) };
}

/**
 * Wraps every method of a repository: a call after close is `StoreError('closed')`, and whatever
 * SQLite or the file system throws (synchronously or from a promise) leaves as a `StoreError`.
 */
function guardFor(db: Db) {
  const map = (error: unknown) => toStoreError(error, stateOf(db));
  return <T extends object>(repo: T): T => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(repo)) {
      if (typeof value !== 'function') {
        out[key] = value;
        continue;
      }
      out[key] = (...args: unknown[]) => {
        if (!db.open) throw new StoreError('closed', 'the store is closed');
        let result: unknown;
        try {
          result = value.apply(repo, args);
        } catch (error) {
          throw map(error);
        }
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            throw map(error);
          });
        }
        return result;
      };
    }
    return out as T;
  };
}
