import {
  checkEventsQuery,
  checkIdempotencyKey,
  checkObject,
  checkTurnEvents,
  checkTurnId,
  checkTurnLabel,
  endedTurnError,
  missingTurnError,
  StoreError,
  TURN_COLUMNS,
  type TurnEventRow,
  type TurnLogRepo,
  type TurnRow,
  toTurn,
  toTurnEvent,
} from '@birdie/store/backend';
import type { Client, Db, Queryable } from './db.js';
import { requireOwner } from './owner.js';

/**
 * The API's turns (`api_turns`) and their events (`turn_events`). A key is claimed by `INSERT … ON CONFLICT DO
 * NOTHING` on the table's unique key, so two requests with one key, on any workers, make one turn. Appends lock the
 * turn's row, so a turn's events commit in id order and a reader following ids never skips one.
 */
export function createTurnLog(db: Db): TurnLogRepo {
  const turnOf = async (q: Queryable, turnId: number, lock = false): Promise<TurnRow> => {
    const { rows } = await q.query<TurnRow>(
      `SELECT ${TURN_COLUMNS} FROM api_turns WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [checkTurnId(turnId)],
    );
    if (!rows[0]) throw missingTurnError(turnId);
    return rows[0];
  };

  const insertAll = async (client: Client, turn: TurnRow, checked: Array<{ type: string; json: string }>) => {
    const now = Date.now();
    const out = [];
    for (const e of checked) {
      const { rows } = await client.query<{ id: number }>(
        'INSERT INTO turn_events (turn_id, session_id, type, data, at) VALUES ($1, $2, $3, $4, $5) RETURNING id',
        [turn.id, turn.session_id, e.type, e.json, now],
      );
      out.push(toTurnEvent({ id: rows[0]!.id, turn_id: turn.id, data: e.json, at: now }));
    }
    await client.query(
      "UPDATE api_turns SET updated_at = $1, state = CASE state WHEN 'starting' THEN 'running' ELSE state END WHERE id = $2",
      [now, turn.id],
    );
    return out;
  };

  return {
    async begin(r) {
      checkObject(r, 'turn');
      const key = r.key === undefined ? null : checkIdempotencyKey(r.key);
      const digest = r.requestDigest === undefined ? null : checkTurnLabel(r.requestDigest, 'requestDigest');
      await requireOwner(db, r.sessionId, r.userId);
      // A turn with the key may be discarded between the insert that met it and the select: then try again.
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const now = Date.now();
        const { rows } = await db.query<TurnRow>(
          `INSERT INTO api_turns (session_id, user_id, idem_key, request_digest, state, created_at, updated_at)
           VALUES ($1, $2, $3, $4, 'starting', $5, $5)
           ON CONFLICT (user_id, session_id, idem_key) DO NOTHING RETURNING ${TURN_COLUMNS}`,
          [r.sessionId, r.userId, key, digest, now],
        );
        if (rows[0]) return { turn: toTurn(rows[0]), created: true };
        const existing = await db.query<TurnRow>(
          `SELECT ${TURN_COLUMNS} FROM api_turns WHERE user_id = $1 AND session_id = $2 AND idem_key = $3`,
          [r.userId, r.sessionId, key],
        );
        if (existing.rows[0]) return { turn: toTurn(existing.rows[0]), created: false };
      }
      throw new StoreError('locked', `the idempotency key of session ${r.sessionId} keeps changing hands`);
    },
    async append(turnId, events) {
      const checked = checkTurnEvents(events);
      return db.tx(async (client) => {
        const turn = await turnOf(client, turnId, true);
        if (turn.state === 'ended') throw endedTurnError(turnId);
        return insertAll(client, turn, checked);
      });
    },
    async end(turnId, status, events = []) {
      const checkedStatus = checkTurnLabel(status, 'status');
      const checked = checkTurnEvents(events);
      return db.tx(async (client) => {
        const turn = await turnOf(client, turnId, true);
        if (turn.state === 'ended') return undefined;
        const recorded = await insertAll(client, turn, checked);
        const now = Date.now();
        await client.query(
          "UPDATE api_turns SET state = 'ended', status = $1, ended_at = $2, updated_at = $2 WHERE id = $3",
          [checkedStatus, now, turn.id],
        );
        return recorded;
      });
    },
    async discard(turnId) {
      await db.query("DELETE FROM api_turns WHERE id = $1 AND state = 'starting'", [checkTurnId(turnId)]);
    },
    async get(turnId, userId) {
      const { rows } = await db.query<TurnRow>(`SELECT ${TURN_COLUMNS} FROM api_turns WHERE id = $1`, [
        checkTurnId(turnId),
      ]);
      if (!rows[0]) return undefined;
      await requireOwner(db, rows[0].session_id, userId);
      return toTurn(rows[0]);
    },
    async latest(sessionId, userId) {
      await requireOwner(db, sessionId, userId);
      const { rows } = await db.query<TurnRow>(
        `SELECT ${TURN_COLUMNS} FROM api_turns WHERE session_id = $1 ORDER BY id DESC LIMIT 1`,
        [sessionId],
      );
      return rows[0] ? toTurn(rows[0]) : undefined;
    },
    async events(sessionId, userId, q) {
      const { afterId, turnId, limit } = checkEventsQuery(q);
      await requireOwner(db, sessionId, userId);
      const { rows } =
        turnId === undefined
          ? await db.query<TurnEventRow>(
              'SELECT id, turn_id, data, at FROM turn_events WHERE session_id = $1 AND id > $2 ORDER BY id LIMIT $3',
              [sessionId, afterId, limit],
            )
          : await db.query<TurnEventRow>(
              'SELECT id, turn_id, data, at FROM turn_events WHERE session_id = $1 AND turn_id = $2 AND id > $3 ORDER BY id LIMIT $4',
              [sessionId, turnId, afterId, limit],
            );
      return rows.map(toTurnEvent);
    },
    async prune(before) {
      if (!(before instanceof Date) || Number.isNaN(before.getTime()))
        throw new StoreError('invalid-argument', 'before must be a valid Date');
      const { rowCount } = await db.query('DELETE FROM api_turns WHERE updated_at < $1', [before.getTime()]);
      return rowCount ?? 0;
    },
  };
}
