import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { BirdieCheckpointer } from './checkpointer/saver.js';
import { type Db, openDatabase } from './db.js';
import { StoreError } from './errors.js';
import { createGrants, type GrantsRepo } from './grants.js';
import { createMemory, type MemoryRepo } from './memory.js';
import { createRuns, type RunsRepo } from './runs.js';
import { createSessions, type Sessions } from './sessions.js';

export interface StoreOptions {
  /** Folder of birdie's data. Default: `BIRDIE_HOME`, else `~/.birdie`. */
  home?: string;
  /** The database file. Default: `<home>/birdie.db`. */
  file?: string;
}

export interface Store {
  /** Absolute path of the SQLite file. */
  readonly file: string;
  readonly sessions: Sessions;
  readonly grants: GrantsRepo;
  readonly memory: MemoryRepo;
  readonly runs: RunsRepo;
  /** LangGraph checkpointer over the same file; `thread_id` is the session id. */
  readonly checkpointer: BaseCheckpointSaver;
  /** Closes the connection; later calls fail with `StoreError('closed')`. Idempotent. */
  close(): void;
}

/** Opens (creating and migrating as needed) the store's SQLite file. */
export function openStore(options: StoreOptions = {}): Store {
  const home = resolve(options.home ?? process.env.BIRDIE_HOME ?? join(homedir(), '.birdie'));
  const file = resolve(options.file ?? join(home, 'birdie.db'));
  const db: Db = openDatabase(file, dirname(file));
  const checkpointer = new BirdieCheckpointer(db);
  const store: Store = {
    file,
    sessions: createSessions(db, (threadId) => checkpointer.deleteThreadSync(threadId)),
    grants: createGrants(db),
    memory: createMemory(db),
    runs: createRuns(db),
    checkpointer,
    close() {
      if (db.open) db.close();
    },
  };
  return guardClosed(store, db);
}

/** Turns better-sqlite3's "database connection is not open" into StoreError('closed'). */
function guardClosed(store: Store, db: Db): Store {
  const wrap = <T extends object>(repo: T): T =>
    new Proxy(repo, {
      get(obj, key, receiver) {
        const value = Reflect.get(obj, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (!db.open) throw new StoreError('closed', 'the store is closed');
          return value.apply(obj, args);
        };
      },
    });
  return {
    file: store.file,
    sessions: wrap(store.sessions),
    grants: wrap(store.grants),
    memory: wrap(store.memory),
    runs: wrap(store.runs),
    checkpointer: store.checkpointer,
    close: store.close,
  };
}
