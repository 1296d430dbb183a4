import { checkCount, checkDate, checkOptions } from './checks.js';
import { type Db, immediate } from './db.js';
import { localDay, sessionIdFor, validateUserId } from './ids.js';
import type { RepairReport, Session, Sessions, SyncOf } from './interface.js';
import type { Leases } from './leases.js';
import type { Ownership } from './owner.js';
import { checkAgentName } from './session-files-check.js';
import { checkTitle } from './validate.js';

export interface SessionRow {
  id: string;
  user_id: string;
  title: string | null;
  agent: string | null;
  created_at: number;
  updated_at: number;
  turns: number;
  input_tokens: number;
  output_tokens: number;
}

export const SESSION_COLUMNS =
  'id, user_id, title, agent, created_at, updated_at, turns, input_tokens, output_tokens';

/** One turn and its tokens added to a session's totals (input, output, now, id): `recordTurn`, `runs.finish`. */
export const ADD_TURN = `UPDATE sessions SET turns = turns + 1, input_tokens = input_tokens + ?,
  output_tokens = output_tokens + ?, updated_at = ? WHERE id = ?`;

export interface SessionDeps {
  owners: Ownership;
  leases: Leases;
  /** Deletes the session's checkpoints inside the caller's transaction. */
  deleteThread(threadId: string): void;
  repair(id: string): Promise<RepairReport>;
}

export function createSessions(db: Db, deps: SessionDeps): SyncOf<Sessions> {
  const { owners, leases } = deps;
  // The next number of the scope and day: one past the last handed out (a deleted session's included), and past every
  // session kept (a row the counter has not seen, such as one restored from a backup, is never collided with).
  const nextSeq = db.prepare<[{ scope: string; day: string }], { n: number }>(
    `INSERT INTO session_numbers (scope, day, last)
     VALUES ($scope, $day, (SELECT COALESCE(MAX(seq), 0) + 1 FROM sessions WHERE scope = $scope AND day = $day))
     ON CONFLICT (scope, day) DO UPDATE SET last = MAX(last + 1, excluded.last)
     RETURNING last AS n`,
  );
  const insert = db.prepare<unknown[], SessionRow>(
    `INSERT INTO sessions (id, user_id, scope, day, seq, title, agent, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${SESSION_COLUMNS}`,
  );
  const byUser = db.prepare<[string], SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = ? ORDER BY updated_at DESC, created_at DESC, day DESC, seq DESC`,
  );
  const byId = db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`);
  const setTitle = db.prepare('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM sessions WHERE id = ?');
  const addTurn = db.prepare(ADD_TURN);

  return {
    create(userId, options) {
      validateUserId(userId);
      const opts = checkOptions(options);
      const title = opts.title === undefined ? null : checkTitle(opts.title);
      const agent = opts.agent === undefined ? null : checkAgentName(opts.agent);
      const now = opts.now === undefined ? new Date() : checkDate(opts.now, 'now');
      const day = localDay(now);
      const scope = opts.perUser ? userId : '';
      // Numbering and insert in one IMMEDIATE transaction: two processes never pick the same N.
      const row = immediate(db, () => {
        const seq = nextSeq.get({ scope, day })!.n;
        const newId = sessionIdFor(scope, day, seq);
        return insert.get(newId, userId, scope, day, seq, title, agent, now.getTime(), now.getTime())!;
      });
      return toSession(row);
    },
    list(userId) {
      validateUserId(userId);
      return byUser.all(userId).map(toSession);
    },
    get(id, userId) {
      if (owners.check(id, userId) === 'missing') return undefined;
      return toSession(byId.get(id)!);
    },
    rename(id, userId, title) {
      const checked = checkTitle(title);
      immediate(db, () => {
        owners.require(id, userId);
        setTitle.run(checked, Date.now(), id);
      });
    },
    delete(id, userId) {
      immediate(db, () => {
        owners.require(id, userId);
        leases.clearForDelete(id);
        remove.run(id);
        deps.deleteThread(id);
      });
    },
    recordTurn(id, userId, usage) {
      const input = checkCount(usage?.inputTokens, 'inputTokens');
      const output = checkCount(usage?.outputTokens, 'outputTokens');
      immediate(db, () => {
        owners.require(id, userId);
        // Fenced like `runs.finish`'s `sessionTurn`: a holder that lost the session adds nothing to its totals.
        leases.fence(id);
        addTurn.run(input, output, Date.now(), id);
      });
    },
    async repair(id, userId) {
      owners.require(id, userId);
      return deps.repair(id);
    },
  };
}

export function toSession(row: SessionRow): Session {
  const session: Session = {
    id: row.id,
    userId: row.user_id,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    turns: row.turns,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
  };
  if (row.title !== null) session.title = row.title;
  if (row.agent !== null && row.agent !== undefined) session.agent = row.agent;
  return session;
}
