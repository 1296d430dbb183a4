import type Database from 'better-sqlite3';
import { type Db, immediate } from './db.js';
import { StoreError } from './errors.js';
import type { RunJournal, SyncOf } from './interface.js';
import type { Leases } from './leases.js';
import { checkCallIds, checkFinishedCall, checkStartedCall } from './validate.js';

/** The journal's statements, compiled once per connection: a run's journal is made on every turn. */
interface JournalStatements {
  start: Database.Statement;
  finish: Database.Statement;
  ended: Database.Statement<[string, string], { call_id: string; status: string }>;
  among: Database.Statement<[string, string], { call_id: string }>;
  /** `synchronous` for the start record's commit and back (a compiled PRAGMA: `db.pragma` compiles every call). */
  syncFull: Database.Statement;
  syncNormal: Database.Statement;
}

const compiled = new WeakMap<Db, JournalStatements>();

function statementsOf(db: Db): JournalStatements {
  let statements = compiled.get(db);
  if (!statements) {
    statements = {
      start: db.prepare(
        `INSERT INTO tool_calls (run_id, session_id, call_id, name, skill, status, started_at)
         VALUES (?, ?, ?, ?, ?, 'started', ?)
         ON CONFLICT (session_id, call_id, run_id) DO UPDATE SET name = excluded.name, skill = excluded.skill,
           status = 'started', started_at = excluded.started_at, ended_at = NULL, duration_ms = NULL,
           truncated = 0, error = NULL`,
      ),
      finish: db.prepare(
        `UPDATE tool_calls SET status = ?, ended_at = ?, duration_ms = ?, truncated = ?, error = ?
         WHERE run_id = ? AND session_id = ? AND call_id = ?`,
      ),
      ended: db.prepare(
        `SELECT call_id, status FROM tool_calls
         WHERE session_id = ? AND status IN ('ok', 'error') AND call_id IN (SELECT value FROM json_each(?))`,
      ),
      among: db.prepare(
        `SELECT DISTINCT call_id FROM tool_calls
         WHERE session_id = ? AND call_id IN (SELECT value FROM json_each(?))`,
      ),
      syncFull: db.prepare('PRAGMA synchronous = FULL'),
      syncNormal: db.prepare('PRAGMA synchronous = NORMAL'),
    };
    compiled.set(db, statements);
  }
  return statements;
}

export function createJournal(db: Db, leases: Leases, runId: number, sessionId: string): SyncOf<RunJournal> {
  const { start, finish, ended, among, syncFull, syncNormal } = statementsOf(db);
  return {
    started(call) {
      const { id, name, skill } = checkStartedCall(call);
      // FULL for this one commit: the record must outlive a power cut that the tool's effect may outlive.
      syncFull.run();
      try {
        immediate(db, () => {
          leases.fence(sessionId);
          start.run(runId, sessionId, id, name, skill, Date.now());
        });
      } finally {
        if (db.open) syncNormal.run();
      }
    },
    finished(call) {
      const checked = checkFinishedCall(call);
      const { id, status, duration, error } = checked;
      const truncated = checked.truncated ? 1 : 0;
      immediate(db, () => {
        const now = Date.now();
        const { changes } = finish.run(status, now, duration, truncated, error, runId, sessionId, id);
        if (changes === 0) {
          throw new StoreError('not-found', `tool call ${id} was never started in run ${runId}`);
        }
      });
    },
    startedAmong(ids) {
      if (checkCallIds(ids).length === 0) return new Set();
      return new Set(among.all(sessionId, JSON.stringify(ids)).map((r) => r.call_id));
    },
    finishedAmong(ids) {
      if (checkCallIds(ids).length === 0) return new Map();
      return new Map(ended.all(sessionId, JSON.stringify(ids)).map((r) => [r.call_id, r.status === 'ok']));
    },
  };
}
