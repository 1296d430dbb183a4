import { StoreError } from '@birdie/store/backend';
import type { Db } from './db.js';
import { quoteIdent } from './db.js';

/**
 * Migrations, applied in order; `birdie_migrations` records each one. Append only: a released migration is never
 * edited. The tables mirror the SQLite store's (same columns, same packed record bytes), so the checks, the repair
 * and the lease rules carry over unchanged. Times are ms since the epoch (`bigint`).
 */
export const MIGRATIONS: readonly { name: string; sql: string }[] = [
  {
    name: 'initial',
    sql: `
  CREATE TABLE sessions (
    id text PRIMARY KEY,
    user_id text NOT NULL,
    day text NOT NULL,
    seq integer NOT NULL,
    title text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    turns integer NOT NULL DEFAULT 0,
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    UNIQUE (day, seq)
  );
  CREATE INDEX sessions_by_user ON sessions (user_id, created_at);

  CREATE TABLE leases (
    session_id text PRIMARY KEY,
    owner text NOT NULL,
    host text NOT NULL,
    pid integer NOT NULL,
    pid_scope text NOT NULL,
    acquired_at bigint NOT NULL,
    expires_at bigint NOT NULL
  );

  CREATE TABLE grants (
    session_id text PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    enabled text NOT NULL,
    disabled text NOT NULL,
    sources text
  );

  CREATE TABLE memory (
    id bigserial PRIMARY KEY,
    user_id text NOT NULL,
    content text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX memory_by_user ON memory (user_id, id);

  CREATE TABLE runs (
    id bigserial PRIMARY KEY,
    session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    model text,
    status text NOT NULL,
    started_at bigint NOT NULL,
    ended_at bigint,
    input_tokens bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    error text
  );
  CREATE INDEX runs_by_session ON runs (session_id, id);

  CREATE TABLE tool_calls (
    id bigserial PRIMARY KEY,
    run_id bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    session_id text NOT NULL,
    call_id text,
    name text NOT NULL,
    skill text,
    status text NOT NULL CHECK (status IN ('started', 'ok', 'error')),
    started_at bigint NOT NULL,
    ended_at bigint,
    duration_ms bigint,
    truncated integer NOT NULL DEFAULT 0,
    error text,
    UNIQUE (session_id, call_id, run_id)
  );
  CREATE INDEX tool_calls_by_run ON tool_calls (run_id, id);

  CREATE TABLE trust (
    dir text COLLATE "C" PRIMARY KEY,
    digest text NOT NULL,
    decision text NOT NULL CHECK (decision IN ('trusted', 'refused')),
    at bigint NOT NULL
  );

  CREATE TABLE cp_threads (
    id bigserial PRIMARY KEY,
    thread_id text NOT NULL,
    ns text NOT NULL,
    UNIQUE (thread_id, ns)
  );

  CREATE TABLE cp_checkpoints (
    seq bigserial PRIMARY KEY,
    thread bigint NOT NULL,
    checkpoint_id text COLLATE "C" NOT NULL,
    parent_seq bigint,
    chans text,
    body bytea,
    UNIQUE (thread, checkpoint_id)
  );

  CREATE TABLE cp_writes (
    checkpoint bigint NOT NULL,
    task_id text COLLATE "C" NOT NULL,
    writes bytea NOT NULL,
    PRIMARY KEY (checkpoint, task_id)
  );

  CREATE TABLE cp_blobs (
    id bigserial PRIMARY KEY,
    thread bigint NOT NULL,
    hash bytea NOT NULL,
    data bytea NOT NULL,
    UNIQUE (thread, hash)
  );

  CREATE TABLE cp_quarantine (
    id bigserial PRIMARY KEY,
    thread_id text NOT NULL,
    ns text NOT NULL,
    source text NOT NULL,
    checkpoint_id text,
    seq bigint,
    task_id text,
    blob_id bigint,
    meta text NOT NULL,
    data bytea,
    reason text NOT NULL,
    at bigint NOT NULL
  );
  CREATE INDEX cp_quarantine_by_thread ON cp_quarantine (thread_id, id);
  `,
  },
  {
    name: 'run-agent',
    sql: `
  ALTER TABLE runs ADD COLUMN agent text;
  ALTER TABLE runs ADD COLUMN agent_digest text;
  `,
  },
  {
    // The complete run log, the scheduler's claimed due times and scheduled tasks; old rows mapped as on SQLite.
    name: 'run-log',
    sql: `
  ALTER TABLE runs ADD COLUMN parent_run_id bigint REFERENCES runs (id) ON DELETE CASCADE;
  ALTER TABLE runs ADD COLUMN user_id text;
  ALTER TABLE runs ADD COLUMN thread_id text;
  ALTER TABLE runs ADD COLUMN start_checkpoint text;
  ALTER TABLE runs ADD COLUMN end_checkpoint text;
  ALTER TABLE runs ADD COLUMN trigger text;
  ALTER TABLE runs ADD COLUMN usage text;
  ALTER TABLE runs ADD COLUMN answer text;
  ALTER TABLE runs ADD COLUMN owner text;
  ALTER TABLE runs ADD COLUMN host text;
  ALTER TABLE runs ADD COLUMN pid integer;
  ALTER TABLE runs ADD COLUMN pid_scope text;
  UPDATE runs SET user_id = s.user_id, thread_id = runs.session_id FROM sessions s WHERE s.id = runs.session_id;
  UPDATE runs SET usage = json_build_array(json_build_object('model', model, 'inputTokens', input_tokens,
      'outputTokens', output_tokens))::text
    WHERE model IS NOT NULL AND (input_tokens > 0 OR output_tokens > 0);
  UPDATE runs SET status = 'died'
    WHERE status = 'interrupted' AND error LIKE 'interrupted: process % stopped holding the session';
  CREATE INDEX runs_by_user ON runs (user_id, id);
  CREATE INDEX runs_by_parent ON runs (parent_run_id);
  CREATE INDEX runs_running ON runs (status) WHERE status = 'running';

  CREATE TABLE trigger_state (
    key text COLLATE "C" PRIMARY KEY,
    last_due bigint NOT NULL,
    claimed_at bigint NOT NULL,
    owner text
  );

  CREATE TABLE tasks (
    id bigserial PRIMARY KEY,
    user_id text NOT NULL,
    agent text,
    prompt text NOT NULL,
    schedule text,
    timezone text,
    every_s double precision,
    at bigint,
    status text NOT NULL CHECK (status IN ('active', 'done', 'cancelled')),
    created_at bigint NOT NULL,
    created_by_run bigint,
    ended_at bigint
  );
  CREATE INDEX tasks_by_user ON tasks (user_id, status, id);
  `,
  },
  {
    // `birdie serve`: the session's data folder (so any worker sees it), API tokens (hashes only), the agent a
    // session started with, and a cancel request on the lease row that its holder polls.
    name: 'session-files-tokens',
    sql: `
  ALTER TABLE sessions ADD COLUMN agent text;
  ALTER TABLE leases ADD COLUMN cancel_at bigint;

  CREATE TABLE session_files (
    id bigserial PRIMARY KEY,
    session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    path text COLLATE "C" NOT NULL,
    size integer NOT NULL,
    sha256 text NOT NULL,
    content bytea NOT NULL,
    updated_at bigint NOT NULL,
    UNIQUE (session_id, path)
  );

  CREATE TABLE api_tokens (
    id text PRIMARY KEY,
    user_id text NOT NULL,
    name text,
    hash text NOT NULL UNIQUE,
    created_at bigint NOT NULL,
    last_used_at bigint
  );
  CREATE INDEX api_tokens_by_user ON api_tokens (user_id, created_at);
  `,
  },
  {
    // Checkpoint and task ids as bytes: a LangGraph id (a lowercase UUID) in 16 bytes instead of 37 in the row and
    // in its index; any other text as 0xFF, its UTF-8 bytes, and a 0x00 when that would be 16 bytes long. Byte
    // order is text order within each kind, so `ORDER BY checkpoint_id` still lists a thread's steps in order.
    // The keys grow at their right end, so their indexes split full. The functions are not STRICT so that the
    // planner inlines them (NULL gives NULL anyway).
    name: 'compact-checkpoint-keys',
    sql: `
  CREATE FUNCTION cp_key(id text) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE
      WHEN id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN decode(replace(id, '-', ''), 'hex')
      WHEN octet_length(convert_to(id, 'UTF8')) = 15 THEN '\\xff'::bytea || convert_to(id, 'UTF8') || '\\x00'::bytea
      ELSE '\\xff'::bytea || convert_to(id, 'UTF8')
    END
  $fn$;
  CREATE FUNCTION cp_key_text(key bytea) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
    SELECT CASE
      WHEN octet_length(key) = 16 THEN encode(key, 'hex')::uuid::text
      WHEN octet_length(key) = 17 AND get_byte(key, 16) = 0 THEN convert_from(substring(key FROM 2 FOR 15), 'UTF8')
      ELSE convert_from(substring(key FROM 2), 'UTF8')
    END
  $fn$;
  ALTER INDEX cp_checkpoints_pkey SET (fillfactor = 100);
  ALTER INDEX cp_checkpoints_thread_checkpoint_id_key SET (fillfactor = 100);
  ALTER INDEX cp_writes_pkey SET (fillfactor = 100);
  ALTER INDEX cp_blobs_pkey SET (fillfactor = 100);
  ALTER TABLE cp_checkpoints ALTER COLUMN checkpoint_id TYPE bytea USING cp_key(checkpoint_id);
  ALTER TABLE cp_writes ALTER COLUMN task_id TYPE bytea USING cp_key(task_id);
  `,
  },
  {
    // A step's pending writes live in its checkpoint row (`writes`: per task, in key order, the length of its key,
    // the key, the length of its record, the record; a length below 128 is one byte, a longer one four bytes
    // big-endian with the top bit set), so a task pays no row and no index entry of its own; the update that adds
    // them is a HOT one. Values get an 8-byte content key (the first 8 bytes of the 12 the old column held), unique
    // per thread so that a put and a putWrites storing the same message at once keep one copy; a match is confirmed
    // by the CRC-32 in the record's head, and a value whose key another one holds is stored with none. Both tables
    // are rebuilt so that fixed-width columns come first (no alignment padding); their sequences carry over. The
    // history walk reads which channels a step stores from its body, so the `chans` column goes.
    name: 'writes-in-checkpoint-rows',
    sql: `
  CREATE FUNCTION cp_len(n integer) RETURNS bytea LANGUAGE sql IMMUTABLE AS $fn$
    SELECT CASE WHEN n < 128 THEN set_byte('\\x00'::bytea, 0, n) ELSE int4send(n | (-2147483648)) END
  $fn$;
  ALTER SEQUENCE cp_checkpoints_seq_seq OWNED BY NONE;
  ALTER TABLE cp_checkpoints RENAME TO cp_checkpoints_v5;
  CREATE TABLE cp_checkpoints (
    seq bigint NOT NULL DEFAULT nextval('cp_checkpoints_seq_seq'),
    thread bigint NOT NULL,
    parent_seq bigint,
    checkpoint_id bytea NOT NULL,
    body bytea,
    writes bytea
  );
  INSERT INTO cp_checkpoints (seq, thread, parent_seq, checkpoint_id, body, writes)
    SELECT c.seq, c.thread, c.parent_seq, c.checkpoint_id, c.body,
      (SELECT string_agg(cp_len(octet_length(w.task_id)) || w.task_id
          || cp_len(octet_length(w.writes)) || w.writes, ''::bytea ORDER BY w.task_id)
        FROM cp_writes w WHERE w.checkpoint = c.seq)
    FROM cp_checkpoints_v5 c ORDER BY c.seq;
  DROP TABLE cp_writes;
  DROP TABLE cp_checkpoints_v5;
  DROP FUNCTION cp_len(integer);
  ALTER TABLE cp_checkpoints ADD PRIMARY KEY (seq) WITH (fillfactor = 100);
  ALTER TABLE cp_checkpoints ADD UNIQUE (thread, checkpoint_id) WITH (fillfactor = 100);
  ALTER SEQUENCE cp_checkpoints_seq_seq OWNED BY cp_checkpoints.seq;

  ALTER SEQUENCE cp_blobs_id_seq OWNED BY NONE;
  ALTER TABLE cp_blobs RENAME TO cp_blobs_v5;
  CREATE TABLE cp_blobs (
    id bigint NOT NULL DEFAULT nextval('cp_blobs_id_seq'),
    thread bigint NOT NULL,
    key bigint,
    data bytea NOT NULL
  );
  INSERT INTO cp_blobs (id, thread, key, data)
    SELECT id, thread, ('x' || rpad(encode(substring(hash FROM 1 FOR 8), 'hex'), 16, '0'))::bit(64)::bigint, data
    FROM cp_blobs_v5 ORDER BY id;
  DROP TABLE cp_blobs_v5;
  ALTER TABLE cp_blobs ADD PRIMARY KEY (id) WITH (fillfactor = 100);
  ALTER TABLE cp_blobs ADD UNIQUE (thread, key);
  ALTER SEQUENCE cp_blobs_id_seq OWNED BY cp_blobs.id;
  `,
  },
  {
    // The API's turns, each with the client's Idempotency-Key (unique per user and session) and its events, so that
    // a client whose stream was cut reattaches on any worker instead of submitting the turn again.
    name: 'turn-events',
    sql: `
  CREATE TABLE api_turns (
    id bigserial PRIMARY KEY,
    session_id text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    user_id text NOT NULL,
    idem_key text,
    request_digest text,
    state text NOT NULL CHECK (state IN ('starting', 'running', 'ended')),
    status text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    ended_at bigint,
    UNIQUE (user_id, session_id, idem_key)
  );
  CREATE INDEX api_turns_by_session ON api_turns (session_id, id);
  CREATE INDEX api_turns_by_age ON api_turns (updated_at);

  CREATE TABLE turn_events (
    id bigserial PRIMARY KEY,
    turn_id bigint NOT NULL REFERENCES api_turns (id) ON DELETE CASCADE,
    session_id text NOT NULL,
    type text NOT NULL,
    data text NOT NULL,
    at bigint NOT NULL
  );
  CREATE INDEX turn_events_by_session ON turn_events (session_id, id);
  CREATE INDEX turn_events_by_turn ON turn_events (turn_id, id);
  `,
  },
  {
    // An API token is a user's own or an operator's `admin` token, which may list and revoke tokens and read every
    // user's run log through the API.
    name: 'token-roles',
    sql: `
  ALTER TABLE api_tokens ADD COLUMN admin boolean NOT NULL DEFAULT false;
  `,
  },
  {
    // A session is numbered in a scope: the store's (`''`: ids `YYYY-MM-DD_N`, every existing session, whose id and
    // thread stay as they are) or its user's own (the user id: ids `USER~YYYY-MM-DD_N`, a shared server's), so that
    // each user counts from 1. The number is unique per scope and day.
    name: 'per-user-numbers',
    sql: `
  ALTER TABLE sessions ADD COLUMN scope text NOT NULL DEFAULT '';
  ALTER TABLE sessions DROP CONSTRAINT sessions_day_seq_key;
  ALTER TABLE sessions ADD CONSTRAINT sessions_scope_day_seq_key UNIQUE (scope, day, seq);
  `,
  },
  {
    // What MCP servers said during a run (log messages at their level, change news), as JSON.
    name: 'run-notices',
    sql: `ALTER TABLE runs ADD COLUMN notices text;`,
  },
  {
    // Deliveries of the chat channels already taken (Slack event ids, Telegram update ids), until they expire.
    name: 'channel-deliveries',
    sql: `
  CREATE TABLE deliveries (
    key text COLLATE "C" PRIMARY KEY,
    expires_at bigint NOT NULL
  );
  CREATE INDEX deliveries_by_expiry ON deliveries (expires_at);
  `,
  },
  {
    // A one-time task whose run failed ends `failed`, with the run's error, instead of `done` (SQLite v11).
    name: 'task-failures',
    sql: `
  ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
  ALTER TABLE tasks ADD CONSTRAINT tasks_status_check CHECK (status IN ('active', 'done', 'failed', 'cancelled'));
  ALTER TABLE tasks ADD COLUMN error text;
  `,
  },
  {
    // The skill grants of the session that scheduled a task (JSON text), which its runs get (SQLite v12).
    name: 'task-grants',
    sql: `ALTER TABLE tasks ADD COLUMN grants text;`,
  },
  {
    // The session that scheduled a task, kept after that session and its runs are deleted (SQLite v13); tasks
    // scheduled before learn it from their run where that is still there.
    name: 'task-origin',
    sql: `
  ALTER TABLE tasks ADD COLUMN origin_session text;
  UPDATE tasks SET origin_session = (SELECT session_id FROM runs WHERE runs.id = tasks.created_by_run)
    WHERE created_by_run IS NOT NULL;
  `,
  },
  {
    // A revoked API token is kept, marked with when it was revoked, so that a user whose every token was revoked is
    // told from one who never had a token (SQLite v14).
    name: 'revoked-tokens',
    sql: `ALTER TABLE api_tokens ADD COLUMN revoked_at bigint;`,
  },
  {
    // Admissions counted over a sliding window (a user's turns per minute on a shared server), each kept until its
    // window has passed (SQLite v15).
    name: 'turn-admissions',
    sql: `
  CREATE TABLE admissions (
    id bigserial PRIMARY KEY,
    key text COLLATE "C" NOT NULL,
    expires_at bigint NOT NULL
  );
  CREATE INDEX admissions_by_key ON admissions (key, expires_at);
  CREATE INDEX admissions_by_expiry ON admissions (expires_at);
  `,
  },
  {
    // The last number handed out per scope and day: a deleted session's id is never given to a new session.
    name: 'session-numbers',
    sql: `
  CREATE TABLE session_numbers (
    scope text NOT NULL,
    day text NOT NULL,
    last integer NOT NULL,
    PRIMARY KEY (scope, day)
  );
  INSERT INTO session_numbers (scope, day, last) SELECT scope, day, MAX(seq) FROM sessions GROUP BY scope, day;
  `,
  },
];

export interface MigrationStatus {
  /** The schema birdie's tables live in. */
  schema: string;
  /** Migrations applied to the database. */
  current: number;
  /** Migrations this package knows. */
  latest: number;
  /** Names of the migrations still to apply (empty when up to date). */
  pending: string[];
  applied: { version: number; name: string; appliedAt: Date }[];
}

const TABLE = 'birdie_migrations';

/** What has been applied to `schema`, without changing anything. */
export async function migrationStatus(db: Db): Promise<MigrationStatus> {
  const schema = db.schema;
  const exists = await db.query<{ present: boolean }>(`SELECT to_regclass($1) IS NOT NULL AS present`, [
    `${quoteIdent(schema)}.${TABLE}`,
  ]);
  const applied = exists.rows[0]?.present
    ? (
        await db.query<{ version: number; name: string; applied_at: Date }>(
          `SELECT version, name, applied_at FROM ${quoteIdent(schema)}.${TABLE} ORDER BY version`,
        )
      ).rows.map((r) => ({ version: r.version, name: r.name, appliedAt: r.applied_at }))
    : [];
  const current = applied.length;
  return {
    schema,
    current,
    latest: MIGRATIONS.length,
    pending: MIGRATIONS.slice(current).map((m) => m.name),
    applied,
  };
}

/**
 * Applies the pending migrations in one transaction, under an advisory lock, so that workers starting at once
 * migrate once. A database newer than this package is refused (`migration-failed`).
 */
export async function migrate(db: Db): Promise<MigrationStatus> {
  const schema = quoteIdent(db.schema);
  try {
    // Up to date (the usual open): nothing to lock or write, so a read-only server opens too.
    const before = await migrationStatus(db);
    if (before.current === before.latest) return before;
    await db.tx(
      async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`birdie-migrate:${db.schema}`]);
        await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await client.query(
          `CREATE TABLE IF NOT EXISTS ${schema}.${TABLE} (version integer PRIMARY KEY, name text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now())`,
        );
        const { rows } = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${schema}.${TABLE}`,
        );
        const from = rows[0]!.n;
        if (from > MIGRATIONS.length) throw tooNew(from);
        for (let v = from; v < MIGRATIONS.length; v += 1) {
          await client.query(`SET LOCAL search_path = ${schema}`);
          await client.query(MIGRATIONS[v]!.sql);
          await client.query(`INSERT INTO ${schema}.${TABLE} (version, name) VALUES ($1, $2)`, [
            v + 1,
            MIGRATIONS[v]!.name,
          ]);
        }
      },
      { unbounded: true },
    );
  } catch (cause) {
    if (cause instanceof StoreError) throw cause;
    const mapped = db.map(cause);
    if (mapped instanceof StoreError && mapped.code !== 'io') throw mapped;
    throw new StoreError('migration-failed', `cannot migrate schema ${db.schema} of ${db.state.location}`, {
      cause,
    });
  }
  return migrationStatus(db);
}

function tooNew(version: number): StoreError {
  return new StoreError(
    'migration-failed',
    `database schema version ${version} is newer than this birdie understands (${MIGRATIONS.length})`,
    { hint: 'upgrade birdie on this machine' },
  );
}
