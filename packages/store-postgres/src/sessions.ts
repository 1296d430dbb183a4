import {
  checkAgentName,
  checkCount,
  checkDate,
  checkOptions,
  checkTitle,
  localDay,
  type RepairReport,
  SESSION_COLUMNS,
  type SessionRow,
  type Sessions,
  sessionIdFor,
  toSession,
  validateUserId,
} from '@birdie/store/backend';
import type { Client, Db, Queryable } from './db.js';
import type { PgLeases } from './leases.js';
import { checkOwner, requireOwner } from './owner.js';

export interface SessionDeps {
  leases: PgLeases;
  /** Deletes the session's checkpoints inside the caller's transaction. */
  deleteThread(client: Client, threadId: string): Promise<void>;
  repair(id: string): Promise<RepairReport>;
}

export function createSessions(db: Db, deps: SessionDeps): Sessions {
  const byId = async (id: string) =>
    (await db.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`, [id])).rows[0];
  return {
    async create(userId, options) {
      validateUserId(userId);
      const opts = checkOptions(options);
      const title = opts.title === undefined ? null : checkTitle(opts.title);
      const agent = opts.agent === undefined ? null : checkAgentName(opts.agent);
      const at = opts.now === undefined ? new Date() : checkDate(opts.now, 'now');
      const now = at.getTime();
      const day = localDay(at);
      const scope = opts.perUser ? userId : '';
      // Numbering and insert under one lock per scope and day: two workers never pick the same N.
      const row = await db.tx(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
          `birdie-day:${db.schema}:${day}:${scope}`,
        ]);
        // One past the last number handed out (a deleted session's included) and past every session kept.
        const { rows } = await client.query<{ n: number }>(
          `INSERT INTO session_numbers (scope, day, last)
           VALUES ($1, $2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM sessions WHERE scope = $1 AND day = $2))
           ON CONFLICT (scope, day) DO UPDATE SET last = GREATEST(session_numbers.last + 1, excluded.last)
           RETURNING last AS n`,
          [scope, day],
        );
        const seq = rows[0]!.n;
        const inserted = await client.query<SessionRow>(
          `INSERT INTO sessions (id, user_id, scope, day, seq, title, agent, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
           RETURNING ${SESSION_COLUMNS}`,
          [sessionIdFor(scope, day, seq), userId, scope, day, seq, title, agent, now],
        );
        return inserted.rows[0]!;
      });
      return toSession(row);
    },
    async list(userId) {
      validateUserId(userId);
      const { rows } = await db.query<SessionRow>(
        `SELECT ${SESSION_COLUMNS} FROM sessions WHERE user_id = $1 ORDER BY updated_at DESC, created_at DESC, day DESC, seq DESC`,
        [userId],
      );
      return rows.map(toSession);
    },
    async get(id, userId) {
      if ((await checkOwner(db, id, userId)) === 'missing') return undefined;
      const row = await byId(id);
      return row ? toSession(row) : undefined;
    },
    async rename(id, userId, title) {
      const checked = checkTitle(title);
      await db.tx(async (client) => {
        await requireOwner(client, id, userId);
        await client.query('UPDATE sessions SET title = $1, updated_at = $2 WHERE id = $3', [
          checked,
          Date.now(),
          id,
        ]);
      });
    },
    async delete(id, userId) {
      await db.tx(async (client) => {
        await requireOwner(client, id, userId);
        await deps.leases.clearForDelete(client, id);
        await client.query('DELETE FROM sessions WHERE id = $1', [id]);
        await deps.deleteThread(client, id);
      });
    },
    async recordTurn(id, userId, usage) {
      const input = checkCount(usage?.inputTokens, 'inputTokens');
      const output = checkCount(usage?.outputTokens, 'outputTokens');
      await db.tx(async (client) => {
        await requireOwner(client, id, userId);
        // Fenced like `runs.finish`'s `sessionTurn`: a holder that lost the session adds nothing to its totals.
        await deps.leases.fence(client, id);
        await addTurn(client, id, input, output, Date.now());
      });
    },
    async repair(id, userId) {
      await requireOwner(db, id, userId);
      return deps.repair(id);
    },
  };
}

/** One turn and its tokens added to a session's totals: `recordTurn`, and `runs.finish`'s `sessionTurn`. */
export async function addTurn(client: Queryable, id: string, input: number, output: number, now: number) {
  await client.query(
    `UPDATE sessions SET turns = turns + 1, input_tokens = input_tokens + $1,
       output_tokens = output_tokens + $2, updated_at = $3 WHERE id = $4`,
    [input, output, now, id],
  );
}
