/**
 * Migrations, applied in order; `PRAGMA user_version` holds how many ran.
 * Append only: a released migration is never edited.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    day TEXT NOT NULL,
    seq INTEGER NOT NULL,
    title TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    UNIQUE (day, seq)
  );
  CREATE INDEX sessions_by_user ON sessions (user_id, created_at);

  CREATE TABLE grants (
    session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    enabled TEXT NOT NULL,
    disabled TEXT NOT NULL
  );

  CREATE TABLE memory (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX memory_by_user ON memory (user_id, id);

  CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    model TEXT,
    status TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    error TEXT
  );
  CREATE INDEX runs_by_session ON runs (session_id, id);

  CREATE TABLE tool_calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    skill TEXT,
    duration_ms INTEGER NOT NULL,
    ok INTEGER NOT NULL,
    truncated INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    at INTEGER NOT NULL
  );
  CREATE INDEX tool_calls_by_run ON tool_calls (run_id);

  CREATE TABLE cp_threads (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id TEXT NOT NULL,
    ns TEXT NOT NULL,
    UNIQUE (thread_id, ns)
  );

  CREATE TABLE cp_checkpoints (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    thread INTEGER NOT NULL,
    checkpoint_id TEXT NOT NULL,
    parent_seq INTEGER,
    chans TEXT,
    body BLOB,
    UNIQUE (thread, checkpoint_id)
  );

  CREATE TABLE cp_writes (
    checkpoint INTEGER NOT NULL,
    task_id TEXT NOT NULL,
    writes BLOB NOT NULL,
    PRIMARY KEY (checkpoint, task_id)
  ) WITHOUT ROWID;

  CREATE TABLE cp_blobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    thread INTEGER NOT NULL,
    hash BLOB NOT NULL,
    data BLOB NOT NULL,
    UNIQUE (thread, hash)
  );
  `,
  // 2: session leases, the tool-call journal (intent before effect), grant sources, workspace
  // trust, and the quarantine that damaged checkpoint records are moved to by a repair.
  `
  CREATE TABLE leases (
    session_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    pid_scope TEXT NOT NULL,
    acquired_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  );

  CREATE TABLE tool_calls_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    call_id TEXT,
    name TEXT NOT NULL,
    skill TEXT,
    status TEXT NOT NULL CHECK (status IN ('started', 'ok', 'error')),
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    duration_ms INTEGER,
    truncated INTEGER NOT NULL DEFAULT 0,
    error TEXT
  );
  INSERT INTO tool_calls_v2
    (id, run_id, session_id, call_id, name, skill, status, started_at, ended_at, duration_ms, truncated, error)
    SELECT t.id, t.run_id, r.session_id, NULL, t.name, t.skill, CASE WHEN t.ok THEN 'ok' ELSE 'error' END,
           t.at - t.duration_ms, t.at, t.duration_ms, t.truncated, t.error
    FROM tool_calls t JOIN runs r ON r.id = t.run_id;
  DROP TABLE tool_calls;
  ALTER TABLE tool_calls_v2 RENAME TO tool_calls;
  CREATE INDEX tool_calls_by_run ON tool_calls (run_id, id);
  CREATE UNIQUE INDEX tool_calls_by_call ON tool_calls (session_id, call_id, run_id);

  ALTER TABLE grants ADD COLUMN sources TEXT;

  CREATE TABLE trust (
    dir TEXT PRIMARY KEY,
    digest TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('trusted', 'refused')),
    at INTEGER NOT NULL
  );

  CREATE TABLE cp_quarantine (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_id TEXT NOT NULL,
    ns TEXT NOT NULL,
    source TEXT NOT NULL,
    checkpoint_id TEXT,
    seq INTEGER,
    task_id TEXT,
    blob_id INTEGER,
    meta TEXT NOT NULL,
    data BLOB,
    reason TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX cp_quarantine_by_thread ON cp_quarantine (thread_id, id);
  `,
  `
  ALTER TABLE runs ADD COLUMN agent TEXT;
  ALTER TABLE runs ADD COLUMN agent_digest TEXT;
  `,
  // 4: the complete run log (parent run, user, thread and checkpoints, trigger, tokens per model, answer, the
  // process that ran it), due times claimed by the scheduler, and scheduled tasks. Old rows: their user and thread
  // from the session, their tokens under their model, and a run a dead process left (taken over) becomes `died`.
  `
  ALTER TABLE runs ADD COLUMN parent_run_id INTEGER REFERENCES runs (id) ON DELETE CASCADE;
  ALTER TABLE runs ADD COLUMN user_id TEXT;
  ALTER TABLE runs ADD COLUMN thread_id TEXT;
  ALTER TABLE runs ADD COLUMN start_checkpoint TEXT;
  ALTER TABLE runs ADD COLUMN end_checkpoint TEXT;
  ALTER TABLE runs ADD COLUMN trigger TEXT;
  ALTER TABLE runs ADD COLUMN usage TEXT;
  ALTER TABLE runs ADD COLUMN answer TEXT;
  ALTER TABLE runs ADD COLUMN owner TEXT;
  ALTER TABLE runs ADD COLUMN host TEXT;
  ALTER TABLE runs ADD COLUMN pid INTEGER;
  ALTER TABLE runs ADD COLUMN pid_scope TEXT;
  UPDATE runs SET user_id = (SELECT s.user_id FROM sessions s WHERE s.id = runs.session_id),
    thread_id = session_id;
  UPDATE runs SET usage = json_array(json_object('model', model, 'inputTokens', input_tokens,
      'outputTokens', output_tokens))
    WHERE model IS NOT NULL AND (input_tokens > 0 OR output_tokens > 0);
  UPDATE runs SET status = 'died'
    WHERE status = 'interrupted' AND error LIKE 'interrupted: process % stopped holding the session';
  CREATE INDEX runs_by_user ON runs (user_id, id);
  CREATE INDEX runs_by_parent ON runs (parent_run_id);
  CREATE INDEX runs_running ON runs (status) WHERE status = 'running';

  CREATE TABLE trigger_state (
    key TEXT PRIMARY KEY,
    last_due INTEGER NOT NULL,
    claimed_at INTEGER NOT NULL,
    owner TEXT
  );

  CREATE TABLE tasks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    agent TEXT,
    prompt TEXT NOT NULL,
    schedule TEXT,
    timezone TEXT,
    every_s REAL,
    at INTEGER,
    status TEXT NOT NULL CHECK (status IN ('active', 'done', 'cancelled')),
    created_at INTEGER NOT NULL,
    created_by_run INTEGER,
    ended_at INTEGER
  );
  CREATE INDEX tasks_by_user ON tasks (user_id, status, id);
  `,
  // 5: `birdie serve` — the session's data folder (so any worker sees it), API tokens (hashes only), the agent a
  // session started with, and a cancel request on the lease row that its holder polls.
  `
  ALTER TABLE sessions ADD COLUMN agent TEXT;
  ALTER TABLE leases ADD COLUMN cancel_at INTEGER;

  CREATE TABLE session_files (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    content BLOB NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (session_id, path)
  );

  CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    name TEXT,
    hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER
  );
  CREATE INDEX api_tokens_by_user ON api_tokens (user_id, created_at);
  `,
  // 6 (turn-events): the API's turns, each with the client's Idempotency-Key (unique per user and session) and
  // its events, so that a client whose stream was cut reattaches on any worker instead of submitting it again.
  `
  CREATE TABLE api_turns (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    idem_key TEXT,
    request_digest TEXT,
    state TEXT NOT NULL CHECK (state IN ('starting', 'running', 'ended')),
    status TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    ended_at INTEGER,
    UNIQUE (user_id, session_id, idem_key)
  );
  CREATE INDEX api_turns_by_session ON api_turns (session_id, id);
  CREATE INDEX api_turns_by_age ON api_turns (updated_at);

  CREATE TABLE turn_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    turn_id INTEGER NOT NULL REFERENCES api_turns (id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX turn_events_by_session ON turn_events (session_id, id);
  CREATE INDEX turn_events_by_turn ON turn_events (turn_id, id);
  `,
  // 7 (token-roles): an API token is a user's own (0) or an operator's `admin` token (1), which may list and revoke
  // tokens and read every user's run log through the API.
  `
  ALTER TABLE api_tokens ADD COLUMN admin INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1));
  `,
  // 8 (per-user-numbers): a session is numbered in a scope: the store's (`''`: ids `YYYY-MM-DD_N`, every existing
  // session, whose id and thread stay as they are) or its user's own (the user id: ids `USER~YYYY-MM-DD_N`, a shared
  // server's), so that each user of a shared store counts from 1. UNIQUE (day, seq) becomes UNIQUE (scope, day, seq):
  // SQLite changes a constraint only by rebuilding the table, which the runner does with foreign keys off (the rows
  // that refer to a session keep their session_id; the check before commit proves every reference still resolves).
  `
  CREATE TABLE sessions_v8 (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    day TEXT NOT NULL,
    seq INTEGER NOT NULL,
    title TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    agent TEXT,
    scope TEXT NOT NULL DEFAULT '',
    UNIQUE (scope, day, seq)
  );
  INSERT INTO sessions_v8
    (id, user_id, day, seq, title, created_at, updated_at, turns, input_tokens, output_tokens, agent, scope)
    SELECT id, user_id, day, seq, title, created_at, updated_at, turns, input_tokens, output_tokens, agent, ''
    FROM sessions;
  DROP TABLE sessions;
  ALTER TABLE sessions_v8 RENAME TO sessions;
  CREATE INDEX sessions_by_user ON sessions (user_id, created_at);
  `,
  // v9: what MCP servers said during a run (log messages at their level, change news), as JSON.
  `ALTER TABLE runs ADD COLUMN notices TEXT;`,
  // v10: deliveries of the chat channels already taken (Slack event ids, Telegram update ids), until they expire.
  `
  CREATE TABLE deliveries (
    key TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX deliveries_by_expiry ON deliveries (expires_at);
  `,
  // v11: a one-time task whose run failed ends `failed`, with the run's error, instead of `done`. The status CHECK
  // changes, which SQLite does only by rebuilding the table (nothing refers to a task's row).
  `
  CREATE TABLE tasks_v11 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL,
    agent TEXT,
    prompt TEXT NOT NULL,
    schedule TEXT,
    timezone TEXT,
    every_s REAL,
    at INTEGER,
    status TEXT NOT NULL CHECK (status IN ('active', 'done', 'failed', 'cancelled')),
    created_at INTEGER NOT NULL,
    created_by_run INTEGER,
    ended_at INTEGER,
    error TEXT
  );
  INSERT INTO tasks_v11
    (id, user_id, agent, prompt, schedule, timezone, every_s, at, status, created_at, created_by_run, ended_at)
    SELECT id, user_id, agent, prompt, schedule, timezone, every_s, at, status, created_at, created_by_run, ended_at
    FROM tasks;
  DROP TABLE tasks;
  ALTER TABLE tasks_v11 RENAME TO tasks;
  CREATE INDEX tasks_by_user ON tasks (user_id, status, id);
  `,
  // v12 (task-grants): the skill grants of the session that scheduled a task (JSON), which its runs get. Older tasks
  // have none and run with the skills the settings enable, as before.
  `ALTER TABLE tasks ADD COLUMN grants TEXT;`,
  // v13 (task-origin): the session that scheduled a task, kept after that session and its runs are deleted; tasks
  // scheduled before learn it from their run where that is still there.
  `
  ALTER TABLE tasks ADD COLUMN origin_session TEXT;
  UPDATE tasks SET origin_session = (SELECT session_id FROM runs WHERE runs.id = tasks.created_by_run)
    WHERE created_by_run IS NOT NULL;
  `,
  // v14 (revoked-tokens): a revoked API token is kept, marked with when it was revoked (it never authenticates
  // again), so that the store tells a user whose every token was revoked (`birdie serve` refuses their tasks) from one
  // who never had a token (a chat channel's user, the local one: theirs run).
  `ALTER TABLE api_tokens ADD COLUMN revoked_at INTEGER;`,
  // v15 (turn-admissions): admissions counted over a sliding window (`admissions.admit`: a user's turns per minute on
  // a shared server), each kept until its window has passed.
  `
  CREATE TABLE admissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX admissions_by_key ON admissions (key, expires_at);
  CREATE INDEX admissions_by_expiry ON admissions (expires_at);
  `,
  // v16 (session-numbers): the last number handed out per scope and day, so a deleted session's id is never given to
  // a new session (MAX(seq) + 1 gave the newest one's id again once it was deleted); started from the sessions kept.
  `
  CREATE TABLE session_numbers (
    scope TEXT NOT NULL,
    day TEXT NOT NULL,
    last INTEGER NOT NULL,
    PRIMARY KEY (scope, day)
  ) WITHOUT ROWID;
  INSERT INTO session_numbers (scope, day, last) SELECT scope, day, MAX(seq) FROM sessions GROUP BY scope, day;
  `,
];
