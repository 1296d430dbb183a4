import { type Db, immediate, retryBusy } from './db.js';
import { StoreError } from './errors.js';
import { localDay, validateSessionId, validateUserId } from './ids.js';

export interface Session {
  /** `YYYY-MM-DD_N`; also the LangGraph `thread_id` of the session's checkpoints. */
  id: string;
  userId: string;
  title?: string;
  createdAt: Date;
  updatedAt: Date;
  /** Turns recorded with `recordTurn`. */
  turns: number;
  inputTokens: number;
  outputTokens: number;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface Sessions {
  create(userId: string, opts?: { title?: string; now?: Date }): Session;
  /** The user's sessions, newest first. */
  list(userId: string): Session[];
  get(id: string): Session | undefined;
  rename(id: string, title: string): void;
  /** Removes the session with its checkpoints, grants and runs. */
  delete(id: string): void;
  /** Adds one turn and its token usage to the session's totals. */
  recordTurn(id: string, usage: Usage): void;
}

interface Row {
  id: string;
  user_id: string;
  title: string | null;
  created_at: number;
  updated_at: number;
  turns: number;
  input_tokens: number;
  output_tokens: number;
}

const COLUMNS = 'id, user_id, title, created_at, updated_at, turns, input_tokens, output_tokens';

export function createSessions(db: Db, deleteThread: (threadId: string) => void): Sessions {
  const nextSeq = db.prepare<[string], { n: number }>(
    'SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM sessions WHERE day = ?',
  );
  const insert = db.prepare(
    'INSERT INTO sessions (id, user_id, day, seq, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const byUser = db.prepare<[string], Row>(
    `SELECT ${COLUMNS} FROM sessions WHERE user_id = ? ORDER BY created_at DESC, day DESC, seq DESC`,
  );
  const byId = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`);
  const setTitle = db.prepare('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?');
  const remove = db.prepare('DELETE FROM sessions WHERE id = ?');
  const addTurn = db.prepare(
    `UPDATE sessions SET turns = turns + 1, input_tokens = input_tokens + ?,
       output_tokens = output_tokens + ?, updated_at = ? WHERE id = ?`,
  );

  const mustExist = (changes: number, id: string) => {
    if (changes === 0) throw new StoreError('not-found', `no session ${id}`);
  };

  return {
    create(userId, opts = {}) {
      validateUserId(userId);
      const title = opts.title === undefined ? null : checkTitle(opts.title);
      const now = opts.now ?? new Date();
      const day = localDay(now);
      // Numbering and insert in one IMMEDIATE transaction: two processes never pick the same N.
      const id = immediate(db, () => {
        const seq = nextSeq.get(day)!.n;
        const newId = `${day}_${seq}`;
        insert.run(newId, userId, day, seq, title, now.getTime(), now.getTime());
        return newId;
      });
      return toSession(byId.get(id)!);
    },
    list(userId) {
      validateUserId(userId);
      return byUser.all(userId).map(toSession);
    },
    get(id) {
      validateSessionId(id);
      const row = byId.get(id);
      return row ? toSession(row) : undefined;
    },
    rename(id, title) {
      validateSessionId(id);
      const checked = checkTitle(title);
      mustExist(retryBusy(() => setTitle.run(checked, Date.now(), id)).changes, id);
    },
    delete(id) {
      validateSessionId(id);
      immediate(db, () => {
        mustExist(remove.run(id).changes, id);
        deleteThread(id);
      });
    },
    recordTurn(id, usage) {
      validateSessionId(id);
      const input = checkCount(usage?.inputTokens, 'inputTokens');
      const output = checkCount(usage?.outputTokens, 'outputTokens');
      mustExist(retryBusy(() => addTurn.run(input, output, Date.now(), id)).changes, id);
    },
  };
}

function toSession(row: Row): Session {
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
  return session;
}

function checkTitle(title: unknown): string {
  if (typeof title !== 'string' || title.length > 200 || title.includes('\0')) {
    throw new StoreError('invalid-argument', 'a session title is a string of at most 200 characters');
  }
  return title;
}

export function checkCount(value: unknown, name: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw new StoreError('invalid-argument', `${name} must be a non-negative integer`);
  }
  return value as number;
}
