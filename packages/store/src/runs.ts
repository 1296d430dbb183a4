import { checkCount, checkObject, checkText } from './checks.js';
import { type Db, immediate } from './db.js';
import { DIED_WITHOUT_HOLDER, StoreError } from './errors.js';
import { validateSessionId, validateUserId } from './ids.js';
import type {
  RunJournal,
  RunQuery,
  RunRecord,
  RunStart,
  RunStatus,
  RunsRepo,
  SyncOf,
  ToolCallRecord,
  ToolCallStatus,
} from './interface.js';
import { createJournal } from './journal.js';
import type { LeaseRow } from './lease-rows.js';
import type { Leases } from './leases.js';
import type { Ownership } from './owner.js';
import { ADD_TURN } from './sessions.js';
import {
  checkRunFinish,
  checkRunProgress,
  checkRunStart,
  checkRunStatus,
  decodeNotices,
  decodeUsage,
} from './validate.js';

export interface RunRow {
  id: number;
  parent_run_id: number | null;
  user_id: string | null;
  session_id: string;
  thread_id: string | null;
  start_checkpoint: string | null;
  end_checkpoint: string | null;
  model: string | null;
  agent: string | null;
  agent_digest: string | null;
  trigger: string | null;
  status: RunStatus;
  started_at: number;
  ended_at: number | null;
  input_tokens: number;
  output_tokens: number;
  usage: string | null;
  answer: string | null;
  /** Absent on rows read before the column existed (a damaged-store repair reads old copies). */
  notices?: string | null;
  error: string | null;
  owner: string | null;
  host: string | null;
  pid: number | null;
  pid_scope: string | null;
}

export interface ToolRow {
  id: number;
  call_id: string | null;
  name: string;
  skill: string | null;
  status: ToolCallStatus;
  started_at: number;
  ended_at: number | null;
  duration_ms: number | null;
  truncated: number;
  error: string | null;
}

/** A running run with the lease row of its session (if any): what `reap` decides on. */
export interface RunningRow {
  id: number;
  owner: string | null;
  host: string | null;
  pid: number | null;
  lease: LeaseRow | undefined;
}

/** A running run's row joined with its session's lease row, whose columns come prefixed `l_` (all null: none). */
export type RunWithLease = { [K in keyof LeaseRow as `l_${K}`]: LeaseRow[K] | null };

/** The lease row of a `RunWithLease`, if the session has one. */
export function joinedLease(row: RunWithLease): LeaseRow | undefined {
  return row.l_owner === null
    ? undefined
    : {
        session_id: row.l_session_id!,
        owner: row.l_owner,
        host: row.l_host!,
        pid: row.l_pid!,
        pid_scope: row.l_pid_scope!,
        acquired_at: row.l_acquired_at!,
        expires_at: row.l_expires_at!,
      };
}

/** The runs repository before the store wraps it: its journal is synchronous too. */
export type SyncRuns = Omit<SyncOf<RunsRepo>, 'journal'> & { journal(runId: number): SyncOf<RunJournal> };

/** The WHERE clause of a run query (positional `?` parameters), shared by every back end. */
export function runQueryClause(q: RunQuery): { where: string[]; params: unknown[]; limit: number } {
  validateUserId(checkObject(q, 'query').userId);
  const where = ['r.user_id = ?'];
  const params: unknown[] = [q.userId];
  if (q.sessionId !== undefined) {
    where.push('r.session_id = ?');
    params.push(validateSessionId(q.sessionId));
  }
  if (q.agent !== undefined) {
    where.push('r.agent = ?');
    params.push(checkText(q.agent, 'agent', 200));
  }
  if (q.status !== undefined) {
    where.push('r.status = ?');
    params.push(checkRunStatus(q.status));
  }
  if (q.since !== undefined) {
    if (!(q.since instanceof Date) || Number.isNaN(q.since.getTime()))
      throw new StoreError('invalid-argument', 'since must be a valid Date');
    where.push('r.started_at >= ?');
    params.push(q.since.getTime());
  }
  if (q.beforeId !== undefined) {
    where.push('r.id < ?');
    params.push(checkCount(q.beforeId, 'beforeId'));
  }
  if (q.afterId !== undefined) {
    where.push('r.id > ?');
    params.push(checkCount(q.afterId, 'afterId'));
  }
  if (q.parentRunId === null) where.push('r.parent_run_id IS NULL');
  else if (q.parentRunId !== undefined) {
    where.push('r.parent_run_id = ?');
    params.push(checkCount(q.parentRunId, 'parentRunId'));
  }
  const limit = q.limit === undefined ? 50 : checkCount(q.limit, 'limit');
  return { where, params, limit };
}

/** Who a dying run's process was, for its error. */
export function diedMessage(row: { host: string | null; pid: number | null }): string {
  return row.pid === null
    ? DIED_WITHOUT_HOLDER
    : `died: process ${row.pid} on ${row.host ?? 'another machine'} stopped without finishing it`;
}

/**
 * Whether a running run's process is gone: its session's lease is not held by the run's owner (released, taken over)
 * or its holder is not alive (`live` decides: expiry, and a gone process of this machine). A run from before owners
 * were recorded is gone when nobody alive holds its session.
 */
export function runIsDead(run: RunningRow, live: (lease: LeaseRow) => boolean): boolean {
  const lease = run.lease;
  if (!lease) return true;
  if (run.owner !== null && lease.owner !== run.owner) return true;
  return !live(lease);
}

/** Who starts a run: the store's lease identity, recorded so a later check can tell whether it still runs. */
export interface RunStarter {
  owner: string;
  host: string;
  pid: number;
  scope: string;
}

/**
 * The values of a new `runs` row, in the column order both back ends insert (session_id … pid_scope, without
 * `status`, which is always 'running'); `checked` is `checkRunStart(r)`.
 */
export function runStartValues(
  r: RunStart,
  checked: ReturnType<typeof checkRunStart>,
  me: RunStarter,
  now: number,
): unknown[] {
  return [
    r.sessionId,
    r.userId,
    checked.parent,
    checked.thread,
    checked.startCheckpoint,
    checked.model,
    checked.agent?.name ?? null,
    checked.agent?.digest ?? null,
    checked.trigger,
    now,
    me.owner,
    me.host,
    me.pid,
    me.scope,
  ];
}

/** A parent run that is missing, or of another user: the same answer, so one user cannot probe another's. */
export function noParentRun(parent: number, userId: string): StoreError {
  return new StoreError('not-found', `no run ${parent} of user ${userId}`);
}

/** The run's session's lease row as JSON (NULL when none), read in the statement that ends the run. */
const LEASE_OF_RUN = `(SELECT json_object('session_id', l.session_id, 'owner', l.owner, 'host', l.host, 'pid', l.pid,
          'pid_scope', l.pid_scope, 'acquired_at', l.acquired_at, 'expires_at', l.expires_at)
        FROM leases l WHERE l.session_id = runs.session_id)`;

export function createRuns(db: Db, owners: Ownership, leases: Leases): SyncRuns {
  const insert = db.prepare(
    `INSERT INTO runs (session_id, user_id, parent_run_id, thread_id, start_checkpoint, model, agent, agent_digest,
       trigger, status, started_at, owner, host, pid, pid_scope)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?)`,
  );
  // Returns the run's session and user (the turn's end adds to the session's totals without reading the run again),
  // the session's owner (the ownership check needs no statement of its own) and the session's lease row as this
  // transaction sees it (the fence costs no statement of its own either; a fenced end throws, which rolls the update
  // back).
  const update = db.prepare<
    unknown[],
    { session_id: string; user_id: string | null; session_user: string | null; lease: string | null }
  >(
    `UPDATE runs SET status = ?, ended_at = ?, input_tokens = ?, output_tokens = ?, error = ?, usage = ?, answer = ?,
       end_checkpoint = coalesce(?, end_checkpoint), model = coalesce(?, model), notices = ?
     WHERE id = ? AND status = 'running'
     RETURNING session_id, user_id, (SELECT s.user_id FROM sessions s WHERE s.id = runs.session_id) AS session_user,
       ${LEASE_OF_RUN} AS lease`,
  );
  const progress = db.prepare(
    `UPDATE runs SET input_tokens = ?, output_tokens = ?, usage = ?, model = coalesce(?, model)
     WHERE id = ? AND status = 'running'`,
  );
  const one = db.prepare<[number], RunRow>('SELECT * FROM runs WHERE id = ?');
  // A run already ended: its session and that session's lease row, for the fence and the release a second end makes.
  const ended = db.prepare<[number], { session_id: string; lease: string | null }>(
    `SELECT session_id, ${LEASE_OF_RUN} AS lease
     FROM runs WHERE id = ?`,
  );
  const sessionOf = db.prepare<[number], { session_id: string }>('SELECT session_id FROM runs WHERE id = ?');
  const addTurn = db.prepare(ADD_TURN);
  const toolsOf = db.prepare<[number], ToolRow>('SELECT * FROM tool_calls WHERE run_id = ? ORDER BY id');
  const running = db.prepare<[], RunRow & RunWithLease>(
    `SELECT r.*, l.session_id AS l_session_id, l.owner AS l_owner, l.host AS l_host, l.pid AS l_pid,
       l.pid_scope AS l_pid_scope, l.acquired_at AS l_acquired_at, l.expires_at AS l_expires_at
     FROM runs r LEFT JOIN leases l ON l.session_id = r.session_id WHERE r.status = 'running'`,
  );
  const markDied = db.prepare(
    `UPDATE runs SET status = 'died', ended_at = ?, error = ? WHERE id = ? AND status = 'running'`,
  );

  return {
    start(r) {
      const checked = checkRunStart(r);
      return immediate(db, () => {
        owners.require(r.sessionId, r.userId);
        leases.fence(r.sessionId);
        if (checked.parent !== null) {
          const parent = one.get(checked.parent);
          if (!parent || parent.user_id !== r.userId) throw noParentRun(checked.parent, r.userId);
        }
        return Number(insert.run(...runStartValues(r, checked, leases, Date.now())).lastInsertRowid);
      });
    },
    finish(runId, r) {
      const { status, input, output, error, usage, answer, endCheckpoint, model, notices, turn } =
        checkRunFinish(r);
      const released = immediate(db, () => {
        const now = Date.now();
        const run = update.get(
          status,
          now,
          input,
          output,
          error,
          usage,
          answer,
          endCheckpoint,
          model,
          notices,
          runId,
        );
        if (run === undefined) {
          // Ended already (a caller's second end, or marked died meanwhile): the end it recorded and the session's
          // totals stay as they are; the lease it names is still released, as the caller's turn is over.
          const done = Number.isSafeInteger(runId) ? ended.get(runId) : undefined;
          if (done === undefined) throw new StoreError('not-found', `no run ${runId}`);
          const lease = r.release === undefined ? undefined : leases.ownLease(r.release, done.session_id);
          leases.fenceRow(
            done.session_id,
            done.lease === null ? undefined : (JSON.parse(done.lease) as LeaseRow),
          );
          if (lease !== undefined) leases.releaseRow(lease);
          return lease;
        }
        const lease = r.release === undefined ? undefined : leases.ownLease(r.release, run.session_id);
        // A holder whose lease was taken over ends nothing: its runs are the new holder's to mark (they were, 'died').
        leases.fenceRow(run.session_id, run.lease === null ? undefined : (JSON.parse(run.lease) as LeaseRow));
        // The turn's end in the same commit: its session's totals and the release of its lease.
        if (turn !== null) {
          owners.requireOwner(run.session_id, run.user_id ?? '', run.session_user ?? undefined);
          addTurn.run(turn.input, turn.output, now, run.session_id);
        }
        if (lease !== undefined) leases.releaseRow(lease);
        return lease;
      });
      released?.releasedWithRow();
    },
    progress(runId, r) {
      const { input, output, usage, model } = checkRunProgress(r);
      const { changes } = immediate(db, () => progress.run(input, output, usage, model, runId));
      // Not running any more (finished, or marked died meanwhile): the end it recorded stays.
      if (changes === 0 && !(Number.isSafeInteger(runId) && one.get(runId)))
        throw new StoreError('not-found', `no run ${runId}`);
    },
    journal(runId) {
      const row = Number.isSafeInteger(runId) ? sessionOf.get(runId) : undefined;
      if (!row) throw new StoreError('not-found', `no run ${runId}`);
      return createJournal(db, leases, runId, row.session_id);
    },
    get(runId, userId) {
      validateUserId(userId);
      const row = Number.isSafeInteger(runId) ? one.get(runId) : undefined;
      if (!row) return undefined;
      const owner = row.user_id ?? undefined;
      if (owner !== userId)
        throw new StoreError('not-owner', `run ${runId} belongs to user ${owner}, not ${userId}`, {
          ...(owner ? { owner } : {}),
        });
      return toRun(row, toolsOf.all(row.id));
    },
    list(q) {
      const { where, params, limit } = runQueryClause(q);
      if (q.sessionId !== undefined) owners.require(q.sessionId, q.userId);
      const rows = db
        .prepare<unknown[], RunRow>(
          `SELECT r.* FROM runs r WHERE ${where.join(' AND ')} ORDER BY r.id DESC LIMIT ?`,
        )
        .all(...params, limit);
      return rows.map((row) => toRun(row, toolsOf.all(row.id)));
    },
    reap() {
      if (running.all().length === 0) return [];
      return immediate(db, () => {
        const now = Date.now();
        const dead: number[] = [];
        for (const row of running.all()) {
          const lease = joinedLease(row);
          // This store's own runs are alive: it is running them.
          if (row.owner === leases.owner) continue;
          if (
            !runIsDead({ id: row.id, owner: row.owner, host: row.host, pid: row.pid, lease }, (l) =>
              leases.live(l, now),
            )
          )
            continue;
          if (markDied.run(now, diedMessage(row), row.id).changes > 0) dead.push(row.id);
        }
        return dead;
      });
    },
  };
}

export function toRun(row: RunRow, tools: ToolRow[]): RunRecord {
  const run: RunRecord = {
    id: row.id,
    userId: row.user_id ?? '',
    sessionId: row.session_id,
    threadId: row.thread_id ?? row.session_id,
    status: row.status,
    startedAt: new Date(Number(row.started_at)),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    usage: decodeUsage(row.usage),
    notices: decodeNotices(row.notices),
    toolCalls: tools.map((t) => toTool(t, row.status !== 'running')),
  };
  if (row.parent_run_id !== null && row.parent_run_id !== undefined)
    run.parentRunId = Number(row.parent_run_id);
  if (row.start_checkpoint) run.startCheckpointId = row.start_checkpoint;
  if (row.end_checkpoint) run.endCheckpointId = row.end_checkpoint;
  if (row.model !== null) run.model = row.model;
  if (row.agent !== null && row.agent !== undefined)
    run.agent = { name: row.agent, digest: row.agent_digest ?? '' };
  if (row.trigger) run.trigger = row.trigger;
  if (row.ended_at !== null) {
    run.endedAt = new Date(Number(row.ended_at));
    run.durationMs = Number(row.ended_at) - Number(row.started_at);
  }
  if (row.answer) run.answer = row.answer;
  if (row.error !== null) run.error = row.error;
  if (row.host) run.host = row.host;
  if (row.pid !== null && row.pid !== undefined) run.pid = Number(row.pid);
  return run;
}

export function toTool(row: ToolRow, runEnded: boolean): ToolCallRecord {
  const call: ToolCallRecord = {
    id: Number(row.id),
    name: row.name,
    status: row.status,
    resultUnknown: row.status === 'started' && runEnded,
    startedAt: new Date(Number(row.started_at)),
    truncated: row.truncated === 1,
  };
  if (row.call_id !== null) call.callId = row.call_id;
  if (row.skill !== null) call.skill = row.skill;
  if (row.ended_at !== null) call.endedAt = new Date(Number(row.ended_at));
  if (row.duration_ms !== null) call.durationMs = Number(row.duration_ms);
  if (row.error !== null) call.error = row.error;
  return call;
}
