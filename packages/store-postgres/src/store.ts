import { checkReadiness, type Store, StoreError } from '@birdie/store/backend';
import { createAdmissions } from './admissions.js';
import { PostgresCheckpointer } from './checkpointer/saver.js';
import { Db } from './db.js';
import { createDeliveries } from './deliveries.js';
import { runDoctor } from './doctor.js';
import { createFiles } from './files.js';
import { guard } from './guard.js';
import { PgLeases } from './leases.js';
import { type MigrationStatus, migrate, migrationStatus } from './migrations.js';
import { READY_TIMEOUT, redactUrl } from './pg-errors.js';
import { createGrants, createMemory, createTrust } from './records.js';
import { repairSession } from './repair.js';
import { createRuns } from './runs.js';
import { createTasks, createTriggers } from './scheduling.js';
import { checkSchema, timeoutsOf } from './schema-name.js';
import { createSessions } from './sessions.js';
import { createTokens } from './tokens.js';
import { createTurnLog } from './turn-log.js';

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (or with `?host=/socket/dir`). */
  url: string;
  /** Schema of birdie's tables (created if missing). Default `birdie`. */
  schema?: string;
  /** Connections in the pool. Default 10. */
  maxConnections?: number;
  /**
   * Bounds on waiting for the server, so that a frozen server or a dropped network (no answer, no reset) fails calls
   * with `unavailable` instead of hanging them: opening a connection (default 10 000 ms), one statement's answer
   * (default 30 000 ms; 0: none; migrations are never cut), and `ready()`'s round trip (default 5 000 ms).
   */
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  readyTimeoutMs?: number;
  /**
   * Apply pending migrations on open (default). With `false`, a database that is not up to date is refused
   * (`migration-failed`), for deployments that migrate explicitly (`birdie db migrate`).
   */
  migrate?: boolean;
}

/** The PostgreSQL store: the interface, plus the schema it keeps everything in. */
export interface PostgresStore extends Store {
  readonly kind: 'postgres';
  readonly schema: string;
  /** The LangGraph checkpointer over the same tables. */
  readonly checkpointer: PostgresCheckpointer;
  /** Which migrations are applied. */
  migrationStatus(): Promise<MigrationStatus>;
}

/** Opens (migrating as needed) birdie's tables on a PostgreSQL server; several processes and machines may share them. */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const schema = checkSchema(options.schema);
  if (typeof options.url !== 'string' || options.url === '') {
    throw new StoreError('invalid-argument', 'url must be a postgres:// connection string');
  }
  const db = new Db(
    {
      url: options.url,
      ...(options.maxConnections ? { max: options.maxConnections } : {}),
      timeouts: timeoutsOf(options),
    },
    schema,
    redactUrl(options.url),
  );
  try {
    if (options.migrate === false) {
      await requireCurrentSchema(db);
    } else {
      await migrate(db);
    }
  } catch (error) {
    await db.close();
    throw db.map(error);
  }
  const store = assemble(db);
  // A run left `running` by a process that is gone becomes `died` as soon as any process opens the store.
  if (!db.state.readOnly) await store.runs.reap().catch(() => undefined);
  return store;
}

/** Throws `migration-failed` unless the schema is at the version this package needs. */
async function requireCurrentSchema(db: Db): Promise<void> {
  const status = await migrationStatus(db);
  if (status.current === status.latest) return;
  throw new StoreError(
    'migration-failed',
    `schema ${db.schema} of ${db.state.location} is at version ${status.current}, this birdie needs ${status.latest}`,
    { hint: status.current < status.latest ? 'run `birdie db migrate`' : 'upgrade birdie on this machine' },
  );
}

/** Rejects when `probe` has not settled within the readiness bound (the probe's statement ends on its own bound). */
async function withinReadyBound<T>(db: Db, probe: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(READY_TIMEOUT)), db.state.timeouts.readyMs);
  });
  try {
    return await Promise.race([probe, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function assemble(db: Db): PostgresStore {
  const leases = new PgLeases(db);
  const assertWritable = () => {
    const readOnly = db.state.readOnly;
    if (readOnly)
      throw new StoreError('read-only', `cannot write ${db.state.location}: ${readOnly.message}`, {
        hint: readOnly.hint,
      });
  };
  const checkpointer = new PostgresCheckpointer(db, {
    fence: (client, threadId) => leases.fence(client, threadId),
  });
  return {
    kind: 'postgres',
    location: db.state.location,
    schema: db.schema,
    get readOnly() {
      return db.state.readOnly;
    },
    assertWritable,
    sessions: guard(
      db,
      createSessions(db, {
        leases,
        deleteThread: (client, threadId) => checkpointer.deleteThreadIn(client, threadId),
        repair: (id) => repairSession({ db, saver: checkpointer, leases }, id),
      }),
    ),
    grants: guard(db, createGrants(db)),
    memory: guard(db, createMemory(db)),
    runs: guard(db, createRuns(db, leases)),
    leases: guard(db, leases.repo()),
    triggers: guard(db, createTriggers(db, leases)),
    tasks: guard(db, createTasks(db)),
    trust: guard(db, createTrust(db)),
    files: guard(db, createFiles(db, leases)),
    tokens: guard(db, createTokens(db)),
    turns: guard(db, createTurnLog(db)),
    deliveries: guard(db, createDeliveries(db)),
    admissions: guard(db, createAdmissions(db)),
    checkpointer,
    doctor: guard(db, { doctor: () => runDoctor(db, checkpointer) }).doctor,
    migrationStatus: guard(db, { migrationStatus: () => migrationStatus(db) }).migrationStatus,
    // Reachable, migrated (another worker may have run a newer birdie's migrations since), and writable.
    ready: () =>
      checkReadiness(
        guard(db, { probe: () => withinReadyBound(db, requireCurrentSchema(db)) }).probe,
        assertWritable,
      ),
    async close() {
      if (db.closed) return;
      await leases.releaseAll();
      await db.close();
    },
  };
}
