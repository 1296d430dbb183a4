import {
  checkCallIds,
  checkFinishedCall,
  checkRunFinish,
  checkRunProgress,
  checkRunStart,
  checkStartedCall,
  diedMessage,
  joinedLease,
  noParentRun,
  type RunJournal,
  type RunRow,
  type RunsRepo,
  type RunWithLease,
  runIsDead,
  runQueryClause,
  runStartValues,
  StoreError,
  type ToolRow,
  toRun,
  validateUserId,
} from '@birdie/store/backend';
import { type Client, type Db, NOW_MS } from './db.js';
import { guard } from './guard.js';
import type { PgLeases } from './leases.js';
import { requireOwner } from './owner.js';
import { addTurn } from './sessions.js';

/** `?` placeholders as `$1, $2, …`. */
function numbered(sql: string, from = 0): string {
  let n = from;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export function createRuns(db: Db, leases: PgLeases): RunsRepo {
  const toolsFor = async (rows: RunRow[]) => {
    if (rows.length === 0) return [];
    const tools = await db.query<ToolRow & { run_id: number }>(
      'SELECT * FROM tool_calls WHERE run_id = ANY($1::bigint[]) ORDER BY id',
      [rows.map((r) => r.id)],
    );
    const byRun = new Map<number, ToolRow[]>();
    for (const t of tools.rows) byRun.set(t.run_id, [...(byRun.get(t.run_id) ?? []), t]);
    return rows.map((row) => toRun(row, byRun.get(row.id) ?? []));
  };
  return {
    async start(r) {
      const checked = checkRunStart(r);
      return db.tx(async (client) => {
        await requireOwner(client, r.sessionId, r.userId);
        await leases.fence(client, r.sessionId);
        if (checked.parent !== null) {
          const { rows } = await client.query<{ user_id: string | null }>(
            'SELECT user_id FROM runs WHERE id = $1',
            [checked.parent],
          );
          if (rows[0]?.user_id !== r.userId) throw noParentRun(checked.parent, r.userId);
        }
        const { rows } = await client.query<{ id: number }>(
          `INSERT INTO runs (session_id, user_id, parent_run_id, thread_id, start_checkpoint, model, agent,
             agent_digest, trigger, status, started_at, owner, host, pid, pid_scope)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'running', $10, $11, $12, $13, $14) RETURNING id`,
          runStartValues(r, checked, leases, Date.now()),
        );
        return rows[0]!.id;
      });
    },
    async finish(runId, r) {
      const { status, input, output, error, usage, answer, endCheckpoint, model, notices, turn } =
        checkRunFinish(r);
      if (!Number.isSafeInteger(runId)) throw new StoreError('not-found', `no run ${runId}`);
      // The turn's end in one transaction: the run, its session's totals and the release of its lease. The UPDATE
      // reads (and locks FOR SHARE, before the run's row, in the order a takeover locks them) the session's lease
      // row: the fence costs no statement of its own, and a fenced end throws, which rolls the update back.
      const released = await db.tx(async (client) => {
        const now = Date.now();
        const { rows } = await client.query<
          { session_id: string; user_id: string | null; now: number } & RunWithLease
        >(
          `WITH lease AS (
             SELECT * FROM leases WHERE session_id = (SELECT session_id FROM runs WHERE id = $11) FOR SHARE
           )
           UPDATE runs SET status = $1, ended_at = $2, input_tokens = $3, output_tokens = $4, error = $5, usage = $6,
             answer = $7, end_checkpoint = coalesce($8, runs.end_checkpoint), model = coalesce($9, runs.model),
             notices = $10
           FROM (SELECT ${NOW_MS} AS now) n LEFT JOIN lease l ON true
           WHERE runs.id = $11 AND runs.status = 'running'
           RETURNING runs.session_id, runs.user_id, n.now, l.session_id AS l_session_id, l.owner AS l_owner,
             l.host AS l_host, l.pid AS l_pid, l.pid_scope AS l_pid_scope, l.acquired_at AS l_acquired_at,
             l.expires_at AS l_expires_at`,
          [status, now, input, output, error, usage, answer, endCheckpoint, model, notices, runId],
        );
        const run = rows[0] ?? (await endedRun(client, runId));
        if (run === undefined) throw new StoreError('not-found', `no run ${runId}`);
        const held = r.release === undefined ? undefined : leases.ownLease(r.release, run.session_id);
        if (rows.length === 0) {
          // Ended already (a caller's second end, or marked died meanwhile): the end it recorded and the session's
          // totals stay as they are; the lease it names is still released, as the caller's turn is over.
          const row = joinedLease(run);
          leases.fenceRow(run.session_id, row && { ...row, now: run.now });
          if (held !== undefined) await leases.releaseRow(client, held);
          return held;
        }
        // A holder whose lease was taken over ends nothing: its runs are the new holder's to mark (they were, 'died').
        const row = joinedLease(run);
        leases.fenceRow(run.session_id, row && { ...row, now: run.now });
        if (turn !== null) {
          await requireOwner(client, run.session_id, run.user_id ?? '');
          await addTurn(client, run.session_id, turn.input, turn.output, now);
        }
        if (held !== undefined) await leases.releaseRow(client, held);
        return held;
      });
      await released?.releasedWithRow();
    },
    async progress(runId, r) {
      const { input, output, usage, model } = checkRunProgress(r);
      if (!Number.isSafeInteger(runId)) throw new StoreError('not-found', `no run ${runId}`);
      const { rowCount } = await db.query(
        `UPDATE runs SET input_tokens = $1, output_tokens = $2, usage = $3, model = coalesce($4, model)
         WHERE id = $5 AND status = 'running'`,
        [input, output, usage, model, runId],
      );
      // Not running any more (finished, or marked died meanwhile): the end it recorded stays.
      if (rowCount === 0 && (await db.query('SELECT 1 FROM runs WHERE id = $1', [runId])).rowCount === 0)
        throw new StoreError('not-found', `no run ${runId}`);
    },
    async journal(runId) {
      const row = Number.isSafeInteger(runId)
        ? (await db.query<{ session_id: string }>('SELECT session_id FROM runs WHERE id = $1', [runId]))
            .rows[0]
        : undefined;
      if (!row) throw new StoreError('not-found', `no run ${runId}`);
      return guard(db, createJournal(db, leases, runId, row.session_id));
    },
    async get(runId, userId) {
      validateUserId(userId);
      if (!Number.isSafeInteger(runId)) return undefined;
      const { rows } = await db.query<RunRow>('SELECT * FROM runs WHERE id = $1', [runId]);
      const row = rows[0];
      if (!row) return undefined;
      const owner = row.user_id ?? undefined;
      if (owner !== userId)
        throw new StoreError('not-owner', `run ${runId} belongs to user ${owner}, not ${userId}`, {
          ...(owner ? { owner } : {}),
        });
      return (await toolsFor([row]))[0];
    },
    async list(q) {
      const { where, params, limit } = runQueryClause(q);
      if (q.sessionId !== undefined) await requireOwner(db, q.sessionId, q.userId);
      const { rows } = await db.query<RunRow>(
        numbered(`SELECT r.* FROM runs r WHERE ${where.join(' AND ')} ORDER BY r.id DESC LIMIT ?`),
        [...params, limit],
      );
      return toolsFor(rows);
    },
    async reap() {
      const { rows } = await db.query<RunRow & { now: number } & RunWithLease>(
        `SELECT r.*, ${NOW_MS} AS now, l.session_id AS l_session_id, l.owner AS l_owner, l.host AS l_host,
           l.pid AS l_pid, l.pid_scope AS l_pid_scope, l.acquired_at AS l_acquired_at, l.expires_at AS l_expires_at
         FROM runs r LEFT JOIN leases l ON l.session_id = r.session_id WHERE r.status = 'running'`,
      );
      const dead: number[] = [];
      for (const row of rows) {
        if (row.owner === leases.owner) continue;
        const run = { id: row.id, owner: row.owner, host: row.host, pid: row.pid, lease: joinedLease(row) };
        if (!runIsDead(run, (l) => leases.live({ ...l, now: row.now }))) continue;
        const { rowCount } = await db.query(
          `UPDATE runs SET status = 'died', ended_at = $1, error = $2 WHERE id = $3 AND status = 'running'`,
          [row.now, diedMessage(row), row.id],
        );
        if ((rowCount ?? 0) > 0) dead.push(row.id);
      }
      return dead;
    },
  };
}

/**
 * Intent before effect: `started` commits (with `synchronous_commit` on for that transaction, whatever the server's
 * default) before the tool is spawned, fenced by the session's lease.
 */
function createJournal(db: Db, leases: PgLeases, runId: number, sessionId: string): RunJournal {
  return {
    async started(call) {
      const { id, name, skill } = checkStartedCall(call);
      await db.tx(
        async (client) => {
          await leases.fence(client, sessionId);
          await client.query(
            `INSERT INTO tool_calls (run_id, session_id, call_id, name, skill, status, started_at)
             VALUES ($1, $2, $3, $4, $5, 'started', $6)
             ON CONFLICT (session_id, call_id, run_id) DO UPDATE SET name = excluded.name, skill = excluded.skill,
               status = 'started', started_at = excluded.started_at, ended_at = NULL, duration_ms = NULL,
               truncated = 0, error = NULL`,
            [runId, sessionId, id, name, skill, Date.now()],
          );
        },
        { durable: true },
      );
    },
    async finished(call) {
      const { id, status, duration, truncated, error } = checkFinishedCall(call);
      const { rowCount } = await db.query(
        `UPDATE tool_calls SET status = $1, ended_at = $2, duration_ms = $3, truncated = $4, error = $5
         WHERE run_id = $6 AND session_id = $7 AND call_id = $8`,
        [status, Date.now(), duration, truncated ? 1 : 0, error, runId, sessionId, id],
      );
      if (rowCount === 0)
        throw new StoreError('not-found', `tool call ${id} was never started in run ${runId}`);
    },
    async startedAmong(ids) {
      if (checkCallIds(ids).length === 0) return new Set();
      const { rows } = await db.query<{ call_id: string }>(
        'SELECT DISTINCT call_id FROM tool_calls WHERE session_id = $1 AND call_id = ANY($2::text[])',
        [sessionId, [...ids]],
      );
      return new Set(rows.map((r) => r.call_id));
    },
    async finishedAmong(ids) {
      if (checkCallIds(ids).length === 0) return new Map();
      const { rows } = await db.query<{ call_id: string; status: string }>(
        `SELECT call_id, status FROM tool_calls
         WHERE session_id = $1 AND status IN ('ok', 'error') AND call_id = ANY($2::text[])`,
        [sessionId, [...ids]],
      );
      return new Map(rows.map((r) => [r.call_id, r.status === 'ok']));
    },
  };
}

/** A run that is no longer running: its session and that session's lease row, as the turn's end reads them. */
async function endedRun(
  client: Client,
  runId: number,
): Promise<({ session_id: string; user_id: string | null; now: number } & RunWithLease) | undefined> {
  const { rows } = await client.query<
    { session_id: string; user_id: string | null; now: number } & RunWithLease
  >(
    `SELECT r.session_id, r.user_id, ${NOW_MS} AS now, l.session_id AS l_session_id, l.owner AS l_owner,
       l.host AS l_host, l.pid AS l_pid, l.pid_scope AS l_pid_scope, l.acquired_at AS l_acquired_at,
       l.expires_at AS l_expires_at
     FROM runs r LEFT JOIN leases l ON l.session_id = r.session_id WHERE r.id = $1`,
    [runId],
  );
  return rows[0];
}
