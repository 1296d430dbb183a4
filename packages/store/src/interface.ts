// The store interface: what every back end (SQLite here, PostgreSQL in @birdie/store-postgres) implements.
// Every method returns a promise, so a back end over a network client fits the same shape; a failure is a
// rejected promise with a `StoreError` (never a synchronous throw).

import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { DamagedRecord, LeaseHolder } from './errors.js';
import type { StoreReadiness } from './readiness.js';

export interface Session {
  /**
   * `YYYY-MM-DD_N` (numbered across the store), or `USER~YYYY-MM-DD_N` (numbered among the user's own sessions:
   * `sessions.create`'s `perUser`); also the LangGraph `thread_id` of the session's checkpoints.
   */
  id: string;
  userId: string;
  title?: string;
  createdAt: Date;
  updatedAt: Date;
  /** The agent the session was started with (`sessions.create`'s `agent`), if any. */
  agent?: string;
  /** Turns recorded with `recordTurn`. */
  turns: number;
  inputTokens: number;
  outputTokens: number;
}

export interface CreateSessionOptions {
  title?: string;
  now?: Date;
  agent?: string;
  /**
   * Number the session among the user's own of the day, its id carrying the user (`alice~2026-11-29_1`), so that in a
   * store many users share (`birdie serve`) each user's sessions count from 1. Default: `YYYY-MM-DD_N` numbered across
   * the store, as a single user's CLI has them.
   */
  perUser?: boolean;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

/**
 * Sessions by id take the acting user's id and refuse another user's session with
 * `StoreError('not-owner')` (whose `owner` names the session's user).
 */
export interface Sessions {
  /** `agent`: the name of the agent the session starts with (1-128 of `[A-Za-z0-9._-]`), kept with the session. */
  create(userId: string, opts?: CreateSessionOptions): Promise<Session>;
  /** The user's sessions, the one used last (its newest turn or rename) first; then the newest. */
  list(userId: string): Promise<Session[]>;
  /** `undefined` when there is no such session. */
  get(id: string, userId: string): Promise<Session | undefined>;
  rename(id: string, userId: string, title: string): Promise<void>;
  /** Removes the session with its checkpoints, grants, runs and quarantined records; `session-busy` while another process holds it. */
  delete(id: string, userId: string): Promise<void>;
  /** Adds one turn and its token usage to the session's totals. */
  recordTurn(id: string, userId: string, usage: Usage): Promise<void>;
  /**
   * Forks the session from its last good step: damaged checkpoint records and the steps after them
   * move to the quarantine table (nothing is deleted) and the last good checkpoint becomes the head.
   */
  repair(id: string, userId: string): Promise<RepairReport>;
}

/** A session's skill grants, in the registry's serialisable policy shape. */
export interface Grants {
  enabled: string[];
  disabled: string[];
  /**
   * What each enabled skill was when it was granted: skill name → an opaque identity the registry
   * computes (e.g. layer + file path). Stored and returned as given; absent on grants saved without it.
   */
  sources?: Record<string, string>;
}

export interface GrantsRepo {
  /** The session's grants; both lists empty when none were set. `not-found` for no such session. */
  get(sessionId: string, userId: string): Promise<Grants>;
  set(sessionId: string, userId: string, grants: Grants): Promise<void>;
}

/** One long-term memory entry; memory belongs to a user, not a session. */
export interface MemoryEntry {
  id: number;
  userId: string;
  content: string;
  createdAt: Date;
}

export interface MemoryRepo {
  add(userId: string, content: string): Promise<MemoryEntry>;
  /** Oldest first, the order the graph injects them in. */
  list(userId: string): Promise<MemoryEntry[]>;
  /** `false` when the user has no entry with that id. */
  remove(userId: string, id: number): Promise<boolean>;
}

/**
 * How a run ended: `ok`; `error` (the model, a tool or the store failed); `interrupted` (it stopped to wait for an
 * approval nobody gave in this run); `rejected` (a call was refused); `cancelled` (Ctrl+C, SIGTERM, a stop button);
 * `died` (its process vanished: the store found it running with nobody holding its session). `running` until then.
 */
export type RunStatus = 'running' | 'ok' | 'error' | 'interrupted' | 'rejected' | 'cancelled' | 'died';
/** What `finish` records; `died` is the store's own finding, never given. */
export type FinishedStatus = Exclude<RunStatus, 'running' | 'died'>;
export type ToolCallStatus = 'started' | 'ok' | 'error';

export interface ToolCallRecord {
  /** Row id, in call order. */
  id: number;
  /** The model's tool call id; absent on rows logged before the journal existed. */
  callId?: string;
  name: string;
  skill?: string;
  status: ToolCallStatus;
  /** `started` in a run that is no longer running: the call began and its result is unknown (it may have had its effect). */
  resultUnknown: boolean;
  startedAt: Date;
  endedAt?: Date;
  durationMs?: number;
  truncated: boolean;
  error?: string;
}

/** An agent as a run records it: its name and the SHA-256 of its definition file's frontmatter and body. */
export interface RunAgent {
  name: string;
  digest: string;
}

/** The tokens one model used in a run. */
export interface ModelUsage {
  /** `vendor/model` (e.g. `openai/gpt-4o-mini`), as the application names it. */
  model: string;
  inputTokens: number;
  outputTokens: number;
}

export interface RunRecord {
  id: number;
  /** The run this one belongs to: the turn that delegated to a subagent, the run that scheduled a task. */
  parentRunId?: number;
  userId: string;
  sessionId: string;
  /**
   * The LangGraph thread whose checkpoints hold the run's messages: the session's, or a subagent's child thread.
   * Messages are referenced (this thread, `startCheckpointId`..`endCheckpointId`), never copied into the log.
   */
  threadId: string;
  /** The thread's newest checkpoint before the run (absent when the thread was new) and its last one in the run. */
  startCheckpointId?: string;
  endCheckpointId?: string;
  model?: string;
  /** The agent that answered at the start of the run, and which version of its file. */
  agent?: RunAgent;
  /** What started the run when it was not a person: `schedule 0 9 * * *`, `every 30s`, `watch docs/a.md`, `task 12`. */
  trigger?: string;
  status: RunStatus;
  startedAt: Date;
  endedAt?: Date;
  durationMs?: number;
  /** Totals over every model of the run (subagents included). */
  inputTokens: number;
  outputTokens: number;
  /** The same tokens per model; empty when none were recorded. */
  usage: ModelUsage[];
  /** The final answer: the text of the run's last model message. */
  answer?: string;
  /** What MCP servers said during the run (log messages at their level, list and resource changes), oldest first. */
  notices: RunNotice[];
  error?: string;
  /** The machine and process that ran it (absent on runs logged before this was recorded). */
  host?: string;
  pid?: number;
  toolCalls: ToolCallRecord[];
}

export interface RunStart {
  sessionId: string;
  userId: string;
  model?: string;
  /** The agent that answers at the start of the run, with the digest of its definition (which version ran). */
  agent?: RunAgent;
  /** A run of the same user this one belongs to (a subagent's parent turn, the run that scheduled a task). */
  parentRunId?: number;
  /** What started it (`schedule 0 9 * * *`, `every 30s`, `watch a.md`, `task 12`); absent for a person's turn. */
  trigger?: string;
  /** Default: the session's own thread. */
  threadId?: string;
  startCheckpointId?: string;
}

/** One thing an MCP server said during a run: a log message at its level, or news that something changed. */
export interface RunNotice {
  at: Date;
  /** The MCP server (its skill's name). */
  server: string;
  /** An MCP logging level (`debug` … `emergency`); `info` for change news. */
  level: string;
  /** `log`, or what changed: `tools-changed`, `resources-changed`, `prompts-changed`, `resource-updated`. */
  kind: string;
  text: string;
}

export interface RunFinish {
  status: FinishedStatus;
  /** What MCP servers said during the run (at most `MAX_RUN_NOTICES` are kept: the newest). */
  notices?: RunNotice[];
  inputTokens?: number;
  outputTokens?: number;
  /** Tokens per model; the totals above are the caller's (they are not summed from here). */
  usage?: ModelUsage[];
  /** The text of the run's last model message. */
  answer?: string;
  error?: string;
  endCheckpointId?: string;
  /** The model of the run's last call (`vendor:model`), when one answered: it replaces the one the run started with. */
  model?: string;
  /**
   * Also adds the run as one turn with these tokens to its session's totals (what `sessions.recordTurn` does, as the
   * run's user), in the run's end's transaction.
   */
  sessionTurn?: Usage;
  /**
   * Also gives this lease back in the same transaction (what `lease.release()` would do after it): a turn's end, its
   * session's totals and the release are one commit, all or nothing. It must be this store's lease on the run's
   * session (`invalid-argument` otherwise); a lease no longer held is left as it is.
   */
  release?: SessionLease;
}

/** What a running run has used so far: recorded as it goes, so a run whose process dies keeps it. */
export interface RunProgress {
  inputTokens: number;
  outputTokens: number;
  /** Tokens per model so far. */
  usage: ModelUsage[];
  /** The model of the run's latest call (`vendor:model`). */
  model?: string;
}

export interface RunQuery {
  userId: string;
  /** Only runs of this session of the user. */
  sessionId?: string;
  /** Only runs whose agent has this name. */
  agent?: string;
  status?: RunStatus;
  /** Only runs started at or after this time. */
  since?: Date;
  /** Only runs with a smaller id (paging back), or a larger one (following new runs). */
  beforeId?: number;
  afterId?: number;
  /** `null`: runs without a parent only (what a person started or a trigger started); a number: that run's children. */
  parentRunId?: number | null;
  /** Default 50. */
  limit?: number;
}

export interface RunsRepo {
  /**
   * Opens a run (status `running`) on the user's session and returns its id, recording this process (host, pid) as
   * its owner. `session-busy` when another live process holds the session's lease; `not-found` for a parent run
   * that is not the user's.
   */
  start(r: RunStart): Promise<number>;
  /** Ends the run (`not-found` for an unknown run); with `sessionTurn` and `release`, a turn's whole end in one commit. */
  finish(runId: number, r: RunFinish): Promise<void>;
  /**
   * Records the tokens a running run has used so far (and its latest model); a run that has ended is left as it is.
   * `not-found` for an unknown run.
   */
  progress(runId: number, r: RunProgress): Promise<void>;
  /** The run's tool journal (intent before effect). `not-found` for an unknown run. */
  journal(runId: number): Promise<RunJournal>;
  /** One run of the user with its tool calls; undefined when there is none, `not-owner` for another user's. */
  get(runId: number, userId: string): Promise<RunRecord | undefined>;
  /** The user's runs, newest first, each with its tool calls in call order. Default limit 50. */
  list(q: RunQuery): Promise<RunRecord[]>;
  /**
   * Marks `died` every run still `running` whose process is gone: nobody holds its session's lease any more, or the
   * holder is another owner, an expired one, or a process of this machine that no longer exists. Returns their ids.
   * Every store does this once when it opens; a long-lived process may call it again.
   */
  reap(): Promise<number[]>;
}

/**
 * Intent before effect: the graph records that a tool call starts before it spawns anything, and
 * how it ended afterwards. A row still `started` once its run has ended means "started, result
 * unknown": the call may have had its effect. The graph declares this interface structurally.
 */
export interface RunJournal {
  /** Inserts the call's row with status `started`; durable when the promise resolves. */
  started(call: { id: string; name: string; skill?: string }): Promise<void>;
  /** Records how a started call ended; `not-found` if `started` was never called for it in this run. */
  finished(call: {
    id: string;
    ok: boolean;
    durationMs: number;
    truncated: boolean;
    error?: string;
  }): Promise<void>;
  /** Which of these call ids were ever started in this run's session, by any run. */
  startedAmong(ids: readonly string[]): Promise<Set<string>>;
  /** Of these call ids of the session, the ones whose end was recorded: `true` when they succeeded. */
  finishedAmong(ids: readonly string[]): Promise<Map<string, boolean>>;
}

export interface AcquireOptions {
  /** How long to wait for another holder to let go, polling with back-off. Default 0: fail at once. */
  waitMs?: number;
  /** How long the lease lasts without a heartbeat (renewed every third of it). Default 30 s. */
  ttlMs?: number;
  /** Aborting stops the wait; `acquire` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called once, when the first attempt finds the session held and `waitMs` allows waiting. */
  onWait?: (holder: LeaseHolder) => void;
}

/**
 * What a lease is on: a session id, a turn slot key `turn-slot:<user>:<n>` (one of a user's concurrent turns on a
 * shared server), or a trigger key `trigger:<name>` (the scheduler's: one runner of an agent's
 * triggers at a time, on every process and machine that shares the store).
 */
export type LeaseKey = string;

export interface LeasesRepo {
  /**
   * Takes the lease on a session or a trigger key (one transaction). A lease held by a live process is waited for up to
   * `waitMs`, then `StoreError('session-busy')`; an expired one, or one whose process on this machine is
   * gone, is taken over at once and the session's runs still marked `running` become `died`.
   */
  acquire(key: LeaseKey, opts?: AcquireOptions): Promise<SessionLease>;
  /** The live holder of the lease, if any (expired leases and gone processes are not). */
  holder(key: LeaseKey): Promise<LeaseHolder | undefined>;
  /**
   * Asks the live holder of the session's lease (this process or another, on any machine) to stop what it is doing:
   * its `SessionLease.cancelRequested()` turns true. Returns the holder asked; undefined when no live process holds
   * the session (nothing to cancel). The request ends with that lease.
   */
  requestCancel(sessionId: string): Promise<LeaseHolder | undefined>;
}

/** The right to write one session (or to run one trigger key), held by this process until released (or lost). */
export interface SessionLease {
  /** The session id or trigger key the lease is on. */
  readonly sessionId: string;
  /** This process, as other processes see it. */
  readonly holder: LeaseHolder;
  /** The stale holder (expired, or a process that is gone) this lease replaced, if any. */
  readonly previous?: LeaseHolder;
  /** Gives the session back; idempotent, and never rejects. */
  release(): Promise<void>;
  /** Rejects with `StoreError('lease-lost')` if the lease was released or another owner took it. */
  assertHeld(): Promise<void>;
  /** Whether someone asked this holder to stop (`leases.requestCancel`) since it acquired the lease. */
  cancelRequested(): Promise<boolean>;
}

/** One file of a session's data folder, as stored (the bytes are read with `files.read`). */
export interface SessionFile {
  /** Relative path inside the session's folder, `/`-separated (`todo.json`, `notes/a.md`). */
  path: string;
  size: number;
  /** SHA-256 of the bytes, hex; checked when the file is read back. */
  sha256: string;
  updatedAt: Date;
}

/** Writes and removals applied to a session's files at once. */
export interface SessionFileChanges {
  put?: ReadonlyArray<{ path: string; content: Uint8Array }>;
  remove?: readonly string[];
}

/**
 * A session's data folder kept in the store (the todo skill's plan, …), so that any process or machine continuing
 * the session sees it. Paths are relative (`[A-Za-z0-9._-]` segments joined by `/`, no `.` or `..` segment, at most
 * `SESSION_FILE_LIMITS.pathChars`); sizes are bounded by `SESSION_FILE_LIMITS`. Calls by session id check the owner.
 */
export interface SessionFilesRepo {
  /** The session's files, by path (no content). */
  list(sessionId: string, userId: string): Promise<SessionFile[]>;
  /** A file's bytes; undefined when there is no such file. `corrupt-record` when they fail their checksum. */
  read(sessionId: string, userId: string, path: string): Promise<Uint8Array | undefined>;
  /**
   * Applies every change in one transaction, fenced by the session's lease like any write to the session
   * (`lease-lost`, `session-busy` while another live process holds it). `invalid-argument` for a bad path, a
   * path both put and removed, or a file or session over the limits (nothing is written then).
   */
  apply(sessionId: string, userId: string, changes: SessionFileChanges): Promise<void>;
}

/** An API token as listed: never the token itself (only its SHA-256 is stored). */
export interface ApiToken {
  /** Public id (`tok_` + 16 hex digits), for `tokens revoke`. */
  id: string;
  userId: string;
  /** A label given at creation. */
  name?: string;
  /** An operator's token: may list and revoke tokens and read every user's runs through the API. */
  admin: boolean;
  createdAt: Date;
  /** When the token last authenticated a request (updated at most once a minute). */
  lastUsedAt?: Date;
  /** When it was revoked: only on the tokens `list` gives with `revoked`. */
  revokedAt?: Date;
}

/**
 * Where a user stands with the HTTP API's tokens: `active` with a token that is not revoked, `revoked` when they had
 * tokens and every one was revoked, `none` when they never had one (a chat channel's user, the local user).
 */
export type TokenStanding = 'active' | 'revoked' | 'none';

/**
 * Bearer tokens of the HTTP API: each acts as one user. A revoked token is kept (marked revoked, listed only when asked for, never
 * authenticating) so that `standing` can tell a user whose access was revoked from one who never had any.
 */
export interface TokensRepo {
  /** Makes a token for `userId` and returns it once (`bdt_` + 43 base64url characters); only its hash is kept. */
  create(
    userId: string,
    opts?: { name?: string; admin?: boolean },
  ): Promise<{ token: string; record: ApiToken }>;
  /**
   * Every token that is not revoked (of one user when given), oldest first; with `revoked`, the revoked ones instead,
   * each with its `revokedAt`.
   */
  list(userId?: string, opts?: { revoked?: boolean }): Promise<ApiToken[]>;
  /** `false` when there was no token with that id, or it was already revoked. */
  revoke(id: string): Promise<boolean>;
  /** The user's standing: see `TokenStanding`. */
  standing(userId: string): Promise<TokenStanding>;
  /** The token's record when `token` is a token of this store and not revoked; undefined otherwise. */
  verify(token: string): Promise<ApiToken | undefined>;
}

/**
 * Which due times of each trigger have been claimed: the record that makes several processes on one store run a due
 * trigger once. A trigger key names one trigger (`alice/digest:schedule`); its runs are claimed under a lease on a
 * trigger key (`trigger:alice/digest`) that the caller holds, so that claim and run stay one process's.
 */
export interface TriggersRepo {
  /** The newest due time claimed (or armed) for the trigger; undefined when it has no record. */
  last(key: string): Promise<Date | undefined>;
  /**
   * Records `at` as the trigger's starting point unless it has a record already (a new trigger does not catch up on
   * times before it was first seen). Returns the record's due time.
   */
  arm(key: string, at: Date): Promise<Date>;
  /**
   * Claims `dueAt` for this process: `true` when no run of the trigger claimed it or a later time. `lease` is the trigger
   * lease key the caller holds (`lease-lost` when it does not hold it now).
   */
  claim(key: string, dueAt: Date, lease: LeaseKey): Promise<boolean>;
}

/** `done`: a one-time task ran; `failed`: its run did not end `ok` (a one-time task is not retried). */
export type TaskStatus = 'active' | 'done' | 'failed' | 'cancelled';

/** A task a user (or the model, with their approval) scheduled: run by `birdie start` as the user. */
export interface ScheduledTask {
  id: number;
  userId: string;
  /** The agent that runs it; absent: the default agent. */
  agent?: string;
  prompt: string;
  /** Exactly one of `schedule` (cron, with an optional `timezone`), `every` (seconds) and `at`. */
  schedule?: string;
  timezone?: string;
  every?: number;
  at?: Date;
  status: TaskStatus;
  createdAt: Date;
  /** The run that scheduled it (the model's `schedule_task` call), when one did. */
  createdByRun?: number;
  /**
   * The session that scheduled it, when one did: kept after that session (and the run above) is deleted, so a task
   * scheduled through a server stays the server's (`birdie serve` runs it; `birdie start` leaves it).
   */
  originSession?: string;
  /** When it stopped: ran (`at` tasks) or was cancelled. */
  endedAt?: Date;
  /** Why its run failed (status `failed`). */
  error?: string;
  /**
   * The skill grants of the session that scheduled it, as they were then: its runs get these skills. Absent on a task
   * scheduled outside a session (`birdie tasks`) or before tasks kept them.
   */
  grants?: Grants;
}

export interface NewTask {
  userId: string;
  prompt: string;
  agent?: string;
  schedule?: string;
  timezone?: string;
  every?: number;
  at?: Date;
  createdByRun?: number;
  /** The session that scheduled it (see `ScheduledTask.originSession`). */
  originSession?: string;
  /** The grants of the session that scheduled it (see `ScheduledTask.grants`). */
  grants?: Grants;
}

export interface TasksRepo {
  /** Stores an active task; `invalid-argument` unless exactly one of `schedule`, `every`, `at` is given. */
  create(task: NewTask): Promise<ScheduledTask>;
  /** The user's tasks, oldest first; only the active ones unless `all`. */
  list(userId: string, opts?: { all?: boolean }): Promise<ScheduledTask[]>;
  /** Every user's active tasks, oldest first (`birdie serve` runs those of its users). */
  listActive(): Promise<ScheduledTask[]>;
  get(id: number, userId: string): Promise<ScheduledTask | undefined>;
  /** Cancels an active task of the user; `false` when there is none with that id. */
  cancel(id: number, userId: string): Promise<boolean>;
  /**
   * Marks an active one-time (`at`) task done after its run, or `failed` with the run's `error` when it did not end
   * `ok`; a task that already ended stays as it ended.
   */
  finish(id: number, outcome?: { error?: string }): Promise<void>;
}

/**
 * Where an API turn is: `starting` until its first event is recorded (the session's lease is held then), `running`,
 * then `ended`. A turn whose submission was refused before it started is discarded, not ended.
 */
export type TurnState = 'starting' | 'running' | 'ended';

/** One turn submitted through the HTTP API (`POST …/turns` or `…/approvals`), as the turn log keeps it. */
export interface TurnRecord {
  id: number;
  sessionId: string;
  userId: string;
  /** The client's `Idempotency-Key`, when it sent one: unique per user and session. */
  key?: string;
  /** What the request that first used the key asked for (a digest the caller computes), to refuse a reuse. */
  requestDigest?: string;
  state: TurnState;
  /** How it ended (the `result` event's status, `interrupted` for an approval request, `died`), once ended. */
  status?: string;
  createdAt: Date;
  /** The last change: an event recorded, or the end. */
  updatedAt: Date;
  endedAt?: Date;
}

/** An event of a turn as recorded: the JSON object the API streams (`{ type, … }`). */
export interface TurnEventRecord {
  /** Increasing across the store, so a session's events are in order by id: the server-sent event's `id`. */
  id: number;
  turnId: number;
  event: { type: string } & Record<string, unknown>;
  at: Date;
}

/**
 * The API's turns and their events, kept so that a client whose stream was cut can find out what happened (and
 * follow the rest) on any worker instead of submitting the turn again. Calls by session id check the owner.
 */
export interface TurnLogRepo {
  /**
   * Records a new turn of the user's session, or, when `key` was used on the session before, returns that turn
   * (`created: false`, whatever its state). Race-safe: two calls with one key make one turn.
   */
  begin(r: {
    sessionId: string;
    userId: string;
    key?: string;
    requestDigest?: string;
  }): Promise<{ turn: TurnRecord; created: boolean }>;
  /**
   * Appends events in order (a `starting` turn becomes `running`); `invalid-argument` for an ended turn. No events
   * only marks the turn alive (its `updatedAt`): the worker running a silent turn says it has not died.
   */
  append(
    turnId: number,
    events: ReadonlyArray<{ type: string } & Record<string, unknown>>,
  ): Promise<TurnEventRecord[]>;
  /**
   * Ends the turn with `status`, appending `events` in the same transaction, and returns them as recorded;
   * undefined (nothing appended) when it had ended already: the first end wins.
   */
  end(
    turnId: number,
    status: string,
    events?: ReadonlyArray<{ type: string } & Record<string, unknown>>,
  ): Promise<TurnEventRecord[] | undefined>;
  /** Removes a turn that never started (still `starting`) with its key, so the key can be used again. */
  discard(turnId: number): Promise<void>;
  /** The user's turn; undefined when there is none (or it was pruned), `not-owner` for another user's. */
  get(turnId: number, userId: string): Promise<TurnRecord | undefined>;
  /** The session's newest turn, if any is kept. */
  latest(sessionId: string, userId: string): Promise<TurnRecord | undefined>;
  /** The session's events after `afterId` (of one turn when `turnId` is given), oldest first; default limit 500. */
  events(
    sessionId: string,
    userId: string,
    q?: { afterId?: number; turnId?: number; limit?: number },
  ): Promise<TurnEventRecord[]>;
  /** Deletes turns (their keys and events) that ended, or last changed, before `before`; returns how many. */
  prune(before: Date): Promise<number>;
}

/**
 * Deliveries already taken: the ids a chat platform gives what it delivers (Slack's `event_id`, a message's channel
 * and `ts`, Telegram's `update_id`), so that something delivered twice (a retry, a redelivery after a restart, a copy
 * sent to another worker behind the same address) is handled once by the processes sharing the store. Claims expire
 * (the table stays small): a key is kept for the `ttlMs` its claim gave.
 */
export interface DeliveriesRepo {
  /**
   * Claims the keys of one delivery: `true` when none of them is claimed now (every key is then recorded until `ttlMs`
   * from now), `false` when one of them is (nothing recorded). Race-safe across processes: of two claims sharing a key,
   * one wins. Expired claims are removed on the way, best effort (a committed claim never fails). 1–8 keys of 1–200 characters without NUL; `ttlMs` from 1 s to 30 days.
   */
  claim(keys: readonly string[], ttlMs: number): Promise<boolean>;
  /**
   * Forgets the claim of these keys (keys nobody holds are skipped), so that a redelivery is handled: for a delivery
   * whose handling failed before it took effect. 1–8 keys, as for `claim`.
   */
  release(keys: readonly string[]): Promise<void>;
}

/** What `admissions.admit` decided: let in (its `id`, to `withdraw` it), or refused until `retryAt`. */
export type AdmissionResult = { admitted: true; id: number } | { admitted: false; retryAt: Date };

/**
 * Admissions counted over a sliding window, so that the processes sharing a store let in at most `limit` things of one
 * key in any `windowMs` (`birdie serve`'s turns of a user per minute: `turns-per-minute:<user>`). An admission is a
 * record kept for `windowMs` from when it was made: never renewed, not ended by its process's exit, gone once its
 * window has passed.
 */
export interface AdmissionsRepo {
  /**
   * Records one admission of `key` when fewer than `limit` of its admissions are in their window at `now` (default:
   * this process's clock): `{ admitted: true, id }`; otherwise records nothing and answers `{ admitted: false, retryAt }`,
   * when the first of them leaves its window. Atomic across processes: admissions racing for the last places never
   * exceed `limit`. Admissions past their window are removed on the way, best effort (a committed admission never
   * fails). A key of 1–200 characters without NUL; `limit` 1–100,000; `windowMs` from 1 s to 1 day.
   */
  admit(key: string, opts: { limit: number; windowMs: number; now?: Date }): Promise<AdmissionResult>;
  /** Takes an admission of `key` back (it does not count any more): for what was refused after it was admitted. */
  withdraw(key: string, id: number): Promise<void>;
}

export type TrustDecision = 'trusted' | 'refused';

/** The user's answer about one project folder, for what it declared when they answered. */
export interface TrustRecord {
  /** The folder's real path (the caller resolves it). */
  dir: string;
  /** Digest of what the folder declares (skills, tools, entrypoints, MCP commands); the registry computes it. */
  digest: string;
  decision: TrustDecision;
  at: Date;
}

export interface TrustRepo {
  get(dir: string): Promise<TrustRecord | undefined>;
  /** Records (or replaces) the decision for `dir`. */
  set(dir: string, record: { digest: string; decision: TrustDecision }): Promise<void>;
  /** Every record, by folder. */
  list(): Promise<TrustRecord[]>;
  /** `false` when there was no record for `dir`. */
  revoke(dir: string): Promise<boolean>;
}

/** Why a store only reads. */
export type ReadOnlyReason =
  | 'malformed'
  | 'file-not-writable'
  | 'folder-not-writable'
  | 'read-only-file-system'
  | 'read-only-server'
  | 'disk-full';

/**
 * Set on a store that opened (or turned) read-only: reads work, every write throws `read-only` — or `disk-full` for a
 * store that opened on a full disk, with the same message as a write that meets a full disk.
 */
export interface ReadOnlyState {
  reason: ReadOnlyReason;
  message: string;
  /** The fix, in one sentence naming the file, folder or server. */
  hint: string;
}

/** A session with damaged records. */
export interface DamagedSession {
  sessionId: string;
  /** The session's user, when the thread is a session of this store. */
  userId?: string;
  /** Damaged records of the session. */
  damaged: number;
  /** Checkpoints that cannot be read back (damaged, or after a damaged one). */
  unreadableSteps: number;
  /** The step the session reads fine up to (its own graph's namespace); undefined if none. */
  lastGoodCheckpointId?: string;
}

export interface DoctorReport {
  /** Where the data is: the SQLite file, or the server (a URL without its password). */
  location: string;
  /** The back end's own check passed and every record decoded. */
  ok: boolean;
  /** Set when the store only reads (the check may have just found the file malformed). */
  readOnly?: ReadOnlyState;
  /** The back end's own check: SQLite's `PRAGMA integrity_check`, PostgreSQL's schema check; `['ok']` when it passed. */
  integrity: string[];
  /** Records decoded (values, checkpoint bodies, write records, grants). */
  checked: number;
  damaged: DamagedRecord[];
  sessions: DamagedSession[];
  /** What to do, one sentence per finding; `['nothing to do']` when all is well. */
  advice: string[];
}

/** A record `sessions.repair` moved to `cp_quarantine`. */
export interface QuarantinedRecord {
  table: 'cp_checkpoints' | 'cp_writes' | 'cp_blobs';
  ns: string;
  checkpointId?: string;
  seq?: number;
  taskId?: string;
  blobId?: number;
  /** Why it was set aside: its own damage, or `follows a damaged step`. */
  reason: string;
}

export interface RepairReport {
  sessionId: string;
  /** The checkpoint the session now continues from (its newest good one); undefined if none was good. */
  head?: string;
  /** What was set aside, in `cp_quarantine` (nothing is deleted). Empty when nothing was damaged. */
  quarantined: QuarantinedRecord[];
}

/** Everything birdie persists, behind one interface: SQLite on one machine, PostgreSQL for several. */
export interface Store {
  /** Which back end this is. */
  readonly kind: 'sqlite' | 'postgres';
  /** Where the data is, for messages: the SQLite file, or the server as a URL without its password. */
  readonly location: string;
  /** Set when the store only reads: reads work, every write rejects with `StoreError('read-only')`. */
  readonly readOnly: ReadOnlyState | undefined;
  /**
   * Throws what any write would throw now when the store only reads (`read-only`, or `disk-full` for a SQLite store
   * that opened on a full disk), so a caller can stop before it starts something it cannot record.
   */
  assertWritable(): void;
  readonly sessions: Sessions;
  readonly grants: GrantsRepo;
  readonly memory: MemoryRepo;
  readonly runs: RunsRepo;
  /** One writer per session; one runner per trigger key. */
  readonly leases: LeasesRepo;
  /** Due times claimed by the scheduler. */
  readonly triggers: TriggersRepo;
  /** Tasks users scheduled. */
  readonly tasks: TasksRepo;
  /** Workspace trust decisions, by folder. */
  readonly trust: TrustRepo;
  /** Each session's data folder, so that any worker continuing the session sees it. */
  readonly files: SessionFilesRepo;
  /** Bearer tokens of the HTTP API (`birdie serve`). */
  readonly tokens: TokensRepo;
  /** The HTTP API's turns and their events, for idempotent submission and reattaching (`birdie serve`). */
  readonly turns: TurnLogRepo;
  /** Deliveries of the chat channels already taken, so that one delivered twice is handled once. */
  readonly deliveries: DeliveriesRepo;
  /** Admissions counted over a sliding window (`birdie serve`'s turns per minute of a user), on every process. */
  readonly admissions: AdmissionsRepo;
  /** LangGraph checkpointer over the same data; `thread_id` is the session id. */
  readonly checkpointer: BaseCheckpointSaver;
  /** Checks the whole store: the back end's own check, then every stored record decoded. */
  doctor(): Promise<DoctorReport>;
  /**
   * Whether the store can serve requests now, for a readiness probe (`birdie serve`'s `GET /v1/ready`): its data is
   * reachable (one round trip), its schema is at the version this package needs, and it takes writes. Never throws.
   */
  ready(): Promise<StoreReadiness>;
  /** Releases this store's leases and closes its connections; later calls reject with `StoreError('closed')`. Idempotent. */
  close(): Promise<void>;
}

/**
 * The synchronous shape of a repository whose interface returns promises: a back end with a synchronous
 * driver implements this, and the store wraps it (one resolved promise per call, no await chain).
 */
export type SyncOf<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R | Promise<R> : T[K];
};
