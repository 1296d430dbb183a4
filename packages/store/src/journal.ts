import { checkCount, checkKey, checkText } from './checks.js';
import { type Db, immediate } from './db.js';
import { StoreError } from './errors.js';
import type { Leases } from './leases.js';
import { redactSecrets } from './secrets.js';

/**
 * Intent before effect: the graph records that a tool call starts before it spawns anything, and
 * how it ended afterwards. A row still `started` once its run has ended means "started, result
 * unknown": the call may have had its effect. The graph declares this interface structurally.
 */
export interface RunJournal {
  /** Inserts the call's row with status `started`; durable (fsynced) when it returns. */
  started(call: { id: string; name: string; skill?: string }): void;
  /** Records how a started call ended; `not-found` if `started` was never called for it in this run. */
  finished(call: { id: string; ok: boolean; durationMs: number; truncated: boolean; error?: string }): void;
  /** Which of these call ids were ever started in this run's session, by any run. */
  startedAmong(ids: readonly string[]): Set<string>;
  /** Of these call ids of the session, the ones whose end was recorded: `true` when they succeeded. */
  finishedAmong(ids: readonly string[]): Map<string, boolean>;
}

export function createJournal(db: Db, leases: Leases, runId: number, sessionId: string): RunJournal {
  const start = db.prepare(
    `INSERT INTO tool_calls (run_id, session_id, call_id, name, skill, status, started_at)
     VALUES (?, ?, ?, ?, ?, 'started', ?)
     ON CONFLICT (session_id, call_id, run_id) DO UPDATE SET name = excluded.name, skill = excluded.skill,
       status = 'started', started_at = excluded.started_at, ended_at = NULL, duration_ms = NULL,
       truncated = 0, error = NULL`,
  );
  const finish = db.prepare(
    `UPDATE tool_calls SET status = ?, ended_at = ?, duration_ms = ?, truncated = ?, error = ?
     WHERE run_id = ? AND session_id = ? AND call_id = ?`,
  );
  const ended = db.prepare<[string, string], { call_id: string; status: string }>(
    `SELECT call_id, status FROM tool_calls
     WHERE session_id = ? AND status IN ('ok', 'error') AND call_id IN (SELECT value FROM json_each(?))`,
  );
  const among = db.prepare<[string, string], { call_id: string }>(
    `SELECT DISTINCT call_id FROM tool_calls
     WHERE session_id = ? AND call_id IN (SELECT value FROM json_each(?))`,
  );
  return {
    started(call) {
      const id = checkKey(call?.id, 'call.id');
      const name = checkText(call.name, 'call.name', 200);
      const skill = call.skill === undefined ? null : checkText(call.skill, 'call.skill', 200);
      // FULL for this one commit: the record must outlive a power cut that the tool's effect may outlive.
      db.pragma('synchronous = FULL');
      try {
        immediate(db, () => {
          leases.fence(sessionId);
          start.run(runId, sessionId, id, name, skill, Date.now());
        });
      } finally {
        if (db.open) db.pragma('synchronous = NORMAL');
      }
    },
    finished(call) {
      const id = checkKey(call?.id, 'call.id');
      const duration = checkCount(Math.round(call.durationMs), 'call.durationMs');
      const error = call.error === undefined ? null : redactSecrets(checkText(call.error, 'call.error'));
      const status = call.ok ? 'ok' : 'error';
      const truncated = call.truncated ? 1 : 0;
      immediate(db, () => {
        const now = Date.now();
        const { changes } = finish.run(status, now, duration, truncated, error, runId, sessionId, id);
        if (changes === 0) {
          throw new StoreError('not-found', `tool call ${id} was never started in run ${runId}`);
        }
      });
    },
    startedAmong(ids) {
      if (!Array.isArray(ids) || !ids.every((i) => typeof i === 'string')) {
        throw new StoreError('invalid-argument', 'startedAmong takes an array of call ids');
      }
      if (ids.length === 0) return new Set();
      return new Set(among.all(sessionId, JSON.stringify(ids)).map((r) => r.call_id));
    },
    finishedAmong(ids) {
      if (!Array.isArray(ids) || !ids.every((i) => typeof i === 'string')) {
        throw new StoreError('invalid-argument', 'finishedAmong takes an array of call ids');
      }
      if (ids.length === 0) return new Map();
      return new Map(ended.all(sessionId, JSON.stringify(ids)).map((r) => [r.call_id, r.status === 'ok']));
    },
  };
}
