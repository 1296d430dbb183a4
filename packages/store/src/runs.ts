import { type Db, immediate, retryBusy } from './db.js';
import { StoreError } from './errors.js';
import { validateSessionId, validateUserId } from './ids.js';
import { redactSecrets } from './secrets.js';
import { checkCount } from './sessions.js';

export type RunStatus = 'running' | 'ok' | 'error' | 'interrupted' | 'rejected';
export type FinishedStatus = Exclude<RunStatus, 'running'>;

export interface ToolCallInput {
  name: string;
  skill?: string;
  durationMs: number;
  ok: boolean;
  truncated?: boolean;
  error?: string;
}

export interface ToolCallRecord extends Required<Pick<ToolCallInput, 'name' | 'durationMs' | 'ok'>> {
  id: number;
  skill?: string;
  truncated: boolean;
  error?: string;
  at: Date;
}

export interface RunRecord {
  id: number;
  sessionId: string;
  model?: string;
  status: RunStatus;
  startedAt: Date;
  endedAt?: Date;
  durationMs?: number;
  inputTokens: number;
  outputTokens: number;
  error?: string;
  toolCalls: ToolCallRecord[];
}

export interface RunFinish {
  status: FinishedStatus;
  inputTokens?: number;
  outputTokens?: number;
  error?: string;
}

export interface RunsRepo {
  /** Opens a run (status `running`) and returns its id. */
  start(r: { sessionId: string; model?: string }): number;
  finish(runId: number, r: RunFinish): void;
  toolCall(runId: number, t: ToolCallInput): void;
  /** Newest first, each with its tool calls in call order. Default limit 50. */
  list(q?: { sessionId?: string; userId?: string; limit?: number }): RunRecord[];
}

const STATUSES = new Set<FinishedStatus>(['ok', 'error', 'interrupted', 'rejected']);
const MAX_TEXT = 4000;

interface RunRow {
  id: number;
  session_id: string;
  model: string | null;
  status: RunStatus;
  started_at: number;
  ended_at: number | null;
  input_tokens: number;
  output_tokens: number;
  error: string | null;
}

interface ToolRow {
  id: number;
  run_id: number;
  name: string;
  skill: string | null;
  duration_ms: number;
  ok: number;
  truncated: number;
  error: string | null;
  at: number;
}

export function createRuns(db: Db): RunsRepo {
  const sessionExists = db.prepare<[string], { one: number }>('SELECT 1 AS one FROM sessions WHERE id = ?');
  const insert = db.prepare(
    "INSERT INTO runs (session_id, model, status, started_at) VALUES (?, ?, 'running', ?)",
  );
  const update = db.prepare(
    `UPDATE runs SET status = ?, ended_at = ?, input_tokens = ?, output_tokens = ?, error = ? WHERE id = ?`,
  );
  const insertTool = db.prepare(
    `INSERT INTO tool_calls (run_id, name, skill, duration_ms, ok, truncated, error, at)
     SELECT id, ?, ?, ?, ?, ?, ?, ? FROM runs WHERE id = ?`,
  );
  const toolsOf = db.prepare<[number], ToolRow>('SELECT * FROM tool_calls WHERE run_id = ? ORDER BY id');

  return {
    start({ sessionId, model }) {
      validateSessionId(sessionId);
      const checkedModel = model === undefined ? null : text(model, 'model');
      return immediate(db, () => {
        if (!sessionExists.get(sessionId)) throw new StoreError('not-found', `no session ${sessionId}`);
        return Number(insert.run(sessionId, checkedModel, Date.now()).lastInsertRowid);
      });
    },
    finish(runId, r) {
      if (!STATUSES.has(r?.status)) {
        throw new StoreError('invalid-argument', `run status must be one of ${[...STATUSES].join(', ')}`);
      }
      const input = checkCount(r.inputTokens ?? 0, 'inputTokens');
      const output = checkCount(r.outputTokens ?? 0, 'outputTokens');
      const error = r.error === undefined ? null : redactSecrets(text(r.error, 'error'));
      const { changes } = retryBusy(() => update.run(r.status, Date.now(), input, output, error, runId));
      if (changes === 0) throw new StoreError('not-found', `no run ${runId}`);
    },
    toolCall(runId, t) {
      const name = text(t?.name, 'name');
      const skill = t.skill === undefined ? null : text(t.skill, 'skill');
      const duration = checkCount(Math.round(t.durationMs), 'durationMs');
      const error = t.error === undefined ? null : redactSecrets(text(t.error, 'error'));
      const { changes } = retryBusy(() =>
        insertTool.run(name, skill, duration, t.ok ? 1 : 0, t.truncated ? 1 : 0, error, Date.now(), runId),
      );
      if (changes === 0) throw new StoreError('not-found', `no run ${runId}`);
    },
    list(q = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (q.sessionId !== undefined) {
        where.push('r.session_id = ?');
        params.push(validateSessionId(q.sessionId));
      }
      if (q.userId !== undefined) {
        where.push('s.user_id = ?');
        params.push(validateUserId(q.userId));
      }
      const limit = q.limit === undefined ? 50 : checkCount(q.limit, 'limit');
      const rows = db
        .prepare<unknown[], RunRow>(
          `SELECT r.* FROM runs r JOIN sessions s ON s.id = r.session_id
           ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY r.id DESC LIMIT ?`,
        )
        .all(...params, limit);
      return rows.map((row) => toRun(row, toolsOf.all(row.id)));
    },
  };
}

function toRun(row: RunRow, tools: ToolRow[]): RunRecord {
  const run: RunRecord = {
    id: row.id,
    sessionId: row.session_id,
    status: row.status,
    startedAt: new Date(row.started_at),
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    toolCalls: tools.map(toTool),
  };
  if (row.model !== null) run.model = row.model;
  if (row.ended_at !== null) {
    run.endedAt = new Date(row.ended_at);
    run.durationMs = row.ended_at - row.started_at;
  }
  if (row.error !== null) run.error = row.error;
  return run;
}

function toTool(row: ToolRow): ToolCallRecord {
  const call: ToolCallRecord = {
    id: row.id,
    name: row.name,
    durationMs: row.duration_ms,
    ok: row.ok === 1,
    truncated: row.truncated === 1,
    at: new Date(row.at),
  };
  if (row.skill !== null) call.skill = row.skill;
  if (row.error !== null) call.error = row.error;
  return call;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new StoreError('invalid-argument', `${field} must be a non-empty string`);
  }
  return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value;
}
