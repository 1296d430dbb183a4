import { checkCount, checkText } from './checks.js';
import { type Db, immediate } from './db.js';
import { StoreError } from './errors.js';
import { validateUserId } from './ids.js';
import type {
  RunJournal,
  RunRecord,
  RunStatus,
  RunsRepo,
  SyncOf,
  ToolCallRecord,
  ToolCallStatus,
} from './interface.js';
import { createJournal } from './journal.js';
import type { Leases } from './leases.js';
import type { Ownership } from './owner.js';
import { checkRunAgent, checkRunFinish } from './validate.js';

export interface RunRow {
  id: number;
  session_id: string;
  model: string | null;
  agent: string | null;
  agent_digest: string | null;
  status: RunStatus;
  started_at: number;
  ended_at: number | null;
  input_tokens: number;
  output_tokens: number;
  error: string | null;
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

/** The runs repository before the store wraps it: its journal is synchronous too. */
export type SyncRuns = Omit<SyncOf<RunsRepo>, 'journal'> & { journal(runId: number): SyncOf<RunJournal> };

export function createRuns(db: Db, owners: Ownership, leases: Leases): SyncRuns {
  const insert = db.prepare(
    "INSERT INTO runs (session_id, model, agent, agent_digest, status, started_at) VALUES (?, ?, ?, ?, 'running', ?)",
  );
  const update = db.prepare(
    `UPDATE runs SET status = ?, ended_at = ?, input_tokens = ?, output_tokens = ?, error = ? WHERE id = ?`,
  );
  const sessionOf = db.prepare<[number], { session_id: string }>('SELECT session_id FROM runs WHERE id = ?');
  const toolsOf = db.prepare<[number], ToolRow>('SELECT * FROM tool_calls WHERE run_id = ? ORDER BY id');

  return {
    start({ sessionId, userId, model, agent }) {
      const checkedModel = model === undefined ? null : checkText(model, 'model');
      const checked = checkRunAgent(agent);
      return immediate(db, () => {
        owners.require(sessionId, userId);
        leases.fence(sessionId);
        return Number(
          insert.run(sessionId, checkedModel, checked?.name ?? null, checked?.digest ?? null, Date.now())
            .lastInsertRowid,
        );
      });
    },
    finish(runId, r) {
      const { status, input, output, error } = checkRunFinish(r);
      const { changes } = immediate(db, () => update.run(status, Date.now(), input, output, error, runId));
      if (changes === 0) throw new StoreError('not-found', `no run ${runId}`);
    },
    journal(runId) {
      const row = Number.isSafeInteger(runId) ? sessionOf.get(runId) : undefined;
      if (!row) throw new StoreError('not-found', `no run ${runId}`);
      return createJournal(db, leases, runId, row.session_id);
    },
    list(q) {
      const where = ['s.user_id = ?'];
      const params: unknown[] = [q?.userId];
      if (q.sessionId !== undefined) {
        owners.require(q.sessionId, q.userId);
        where.push('r.session_id = ?');
        params.push(q.sessionId);
      } else {
        validateUserId(q?.userId);
      }
      const limit = q.limit === undefined ? 50 : checkCount(q.limit, 'limit');
      const rows = db
        .prepare<unknown[], RunRow>(
          `SELECT r.* FROM runs r JOIN sessions s ON s.id = r.session_id
           WHERE ${where.join(' AND ')} ORDER BY r.id DESC LIMIT ?`,
        )
        .all(...params, limit);
      return rows.map((row) => toRun(row, toolsOf.all(row.id)));
    },
  };
}

export function toRun(row: RunRow, tools: ToolRow[]): RunRecord {
  const run: RunRecord = {
    id: row.id,
    sessionId: row.session_id,
    status: row.status,
    startedAt: new Date(row.started_at),
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    toolCalls: tools.map((t) => toTool(t, row.status !== 'running')),
  };
  if (row.model !== null) run.model = row.model;
  if (row.agent !== null && row.agent !== undefined)
    run.agent = { name: row.agent, digest: row.agent_digest ?? '' };
  if (row.ended_at !== null) {
    run.endedAt = new Date(row.ended_at);
    run.durationMs = row.ended_at - row.started_at;
  }
  if (row.error !== null) run.error = row.error;
  return run;
}

export function toTool(row: ToolRow, runEnded: boolean): ToolCallRecord {
  const call: ToolCallRecord = {
    id: row.id,
    name: row.name,
    status: row.status,
    resultUnknown: row.status === 'started' && runEnded,
    startedAt: new Date(row.started_at),
    truncated: row.truncated === 1,
  };
  if (row.call_id !== null) call.callId = row.call_id;
  if (row.skill !== null) call.skill = row.skill;
  if (row.ended_at !== null) call.endedAt = new Date(row.ended_at);
  if (row.duration_ms !== null) call.durationMs = row.duration_ms;
  if (row.error !== null) call.error = row.error;
  return call;
}
