import {
  checkCallIds,
  checkCount,
  checkFinishedCall,
  checkRunAgent,
  checkRunFinish,
  checkStartedCall,
  checkText,
  type RunJournal,
  type RunRow,
  type RunsRepo,
  StoreError,
  type ToolRow,
  toRun,
  validateUserId,
} from '@birdie/store/backend';
import type { Db } from './db.js';
import { guard } from './guard.js';
import type { PgLeases } from './leases.js';
import { requireOwner } from './owner.js';

export function createRuns(db: Db, leases: PgLeases): RunsRepo {
  return {
    async start({ sessionId, userId, model, agent }) {
      const checkedModel = model === undefined ? null : checkText(model, 'model');
      const checked = checkRunAgent(agent);
      return db.tx(async (client) => {
        await requireOwner(client, sessionId, userId);
        await leases.fence(client, sessionId);
        const { rows } = await client.query<{ id: number }>(
          `INSERT INTO runs (session_id, model, agent, agent_digest, status, started_at)
           VALUES ($1, $2, $3, $4, 'running', $5) RETURNING id`,
          [sessionId, checkedModel, checked?.name ?? null, checked?.digest ?? null, Date.now()],
        );
        return rows[0]!.id;
      });
    },
    async finish(runId, r) {
      const { status, input, output, error } = checkRunFinish(r);
      if (!Number.isSafeInteger(runId)) throw new StoreError('not-found', `no run ${runId}`);
      const { rowCount } = await db.query(
        'UPDATE runs SET status = $1, ended_at = $2, input_tokens = $3, output_tokens = $4, error = $5 WHERE id = $6',
        [status, Date.now(), input, output, error, runId],
      );
      if (rowCount === 0) throw new StoreError('not-found', `no run ${runId}`);
    },
    async journal(runId) {
      const row = Number.isSafeInteger(runId)
        ? (await db.query<{ session_id: string }>('SELECT session_id FROM runs WHERE id = $1', [runId]))
            .rows[0]
        : undefined;
      if (!row) throw new StoreError('not-found', `no run ${runId}`);
      return guard(db, createJournal(db, leases, runId, row.session_id));
    },
    async list(q) {
      const where = ['s.user_id = $1'];
      const params: unknown[] = [q?.userId];
      if (q.sessionId !== undefined) {
        await requireOwner(db, q.sessionId, q.userId);
        params.push(q.sessionId);
        where.push(`r.session_id = $${params.length}`);
      } else {
        validateUserId(q?.userId);
      }
      const limit = q.limit === undefined ? 50 : checkCount(q.limit, 'limit');
      params.push(limit);
      const { rows } = await db.query<RunRow>(
        `SELECT r.* FROM runs r JOIN sessions s ON s.id = r.session_id
         WHERE ${where.join(' AND ')} ORDER BY r.id DESC LIMIT $${params.length}`,
        params,
      );
      if (rows.length === 0) return [];
      const tools = await db.query<ToolRow & { run_id: number }>(
        'SELECT * FROM tool_calls WHERE run_id = ANY($1::bigint[]) ORDER BY id',
        [rows.map((r) => r.id)],
      );
      const byRun = new Map<number, ToolRow[]>();
      for (const t of tools.rows) byRun.set(t.run_id, [...(byRun.get(t.run_id) ?? []), t]);
      return rows.map((row) => toRun(row, byRun.get(row.id) ?? []));
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
