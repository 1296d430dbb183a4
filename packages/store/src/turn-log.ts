import { checkObject } from './checks.js';
import { type Db, immediate } from './db.js';
import { StoreError } from './errors.js';
import type { SyncOf, TurnLogRepo } from './interface.js';
import type { Ownership } from './owner.js';
import {
  checkEventsQuery,
  checkIdempotencyKey,
  checkTurnEvents,
  checkTurnId,
  checkTurnLabel,
  endedTurnError,
  missingTurnError,
  TURN_COLUMNS,
  type TurnEventRow,
  type TurnRow,
  toTurn,
  toTurnEvent,
} from './turn-log-check.js';

/**
 * The API's turns (`api_turns`) and their events (`turn_events`). A key is claimed inside one IMMEDIATE
 * transaction (and by the table's unique key), so two requests with one key make one turn.
 */
export function createTurnLog(db: Db, owners: Ownership): SyncOf<TurnLogRepo> {
  const byId = db.prepare<[number], TurnRow>(`SELECT ${TURN_COLUMNS} FROM api_turns WHERE id = ?`);
  const byKey = db.prepare<[string, string, string], TurnRow>(
    `SELECT ${TURN_COLUMNS} FROM api_turns WHERE user_id = ? AND session_id = ? AND idem_key = ?`,
  );
  const newest = db.prepare<[string], TurnRow>(
    `SELECT ${TURN_COLUMNS} FROM api_turns WHERE session_id = ? ORDER BY id DESC LIMIT 1`,
  );
  const insert = db.prepare(
    `INSERT INTO api_turns (session_id, user_id, idem_key, request_digest, state, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'starting', ?, ?)`,
  );
  const insertEvent = db.prepare(
    'INSERT INTO turn_events (turn_id, session_id, type, data, at) VALUES (?, ?, ?, ?, ?)',
  );
  const touch = db.prepare(
    "UPDATE api_turns SET updated_at = ?, state = CASE state WHEN 'starting' THEN 'running' ELSE state END WHERE id = ?",
  );
  const endRow = db.prepare(
    "UPDATE api_turns SET state = 'ended', status = ?, ended_at = ?, updated_at = ? WHERE id = ?",
  );
  const discardRow = db.prepare("DELETE FROM api_turns WHERE id = ? AND state = 'starting'");
  const eventsOf = db.prepare<[string, number, number], TurnEventRow>(
    'SELECT id, turn_id, data, at FROM turn_events WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?',
  );
  const eventsOfTurn = db.prepare<[string, number, number, number], TurnEventRow>(
    'SELECT id, turn_id, data, at FROM turn_events WHERE session_id = ? AND turn_id = ? AND id > ? ORDER BY id LIMIT ?',
  );
  const pruneRows = db.prepare('DELETE FROM api_turns WHERE updated_at < ?');

  const turnOf = (turnId: number): TurnRow => {
    const row = byId.get(checkTurnId(turnId));
    if (!row) throw missingTurnError(turnId);
    return row;
  };

  const insertAll = (turn: TurnRow, checked: Array<{ type: string; json: string }>) => {
    const now = Date.now();
    const out = checked.map((e) => {
      const id = Number(insertEvent.run(turn.id, turn.session_id, e.type, e.json, now).lastInsertRowid);
      return toTurnEvent({ id, turn_id: turn.id, data: e.json, at: now });
    });
    touch.run(now, turn.id);
    return out;
  };

  return {
    begin(r) {
      checkObject(r, 'turn');
      const key = r.key === undefined ? null : checkIdempotencyKey(r.key);
      const digest = r.requestDigest === undefined ? null : checkTurnLabel(r.requestDigest, 'requestDigest');
      return immediate(db, () => {
        owners.require(r.sessionId, r.userId);
        if (key !== null) {
          const existing = byKey.get(r.userId, r.sessionId, key);
          if (existing) return { turn: toTurn(existing), created: false };
        }
        const now = Date.now();
        const id = Number(insert.run(r.sessionId, r.userId, key, digest, now, now).lastInsertRowid);
        return { turn: toTurn(byId.get(id)!), created: true };
      });
    },
    append(turnId, events) {
      const checked = checkTurnEvents(events);
      return immediate(db, () => {
        const turn = turnOf(turnId);
        if (turn.state === 'ended') throw endedTurnError(turnId);
        return insertAll(turn, checked);
      });
    },
    end(turnId, status, events = []) {
      const checkedStatus = checkTurnLabel(status, 'status');
      const checked = checkTurnEvents(events);
      return immediate(db, () => {
        const turn = turnOf(turnId);
        if (turn.state === 'ended') return undefined;
        const recorded = insertAll(turn, checked);
        const now = Date.now();
        endRow.run(checkedStatus, now, now, turn.id);
        return recorded;
      });
    },
    discard(turnId) {
      const id = checkTurnId(turnId);
      immediate(db, () => discardRow.run(id));
    },
    get(turnId, userId) {
      const row = byId.get(checkTurnId(turnId));
      if (!row) return undefined;
      owners.require(row.session_id, userId);
      return toTurn(row);
    },
    latest(sessionId, userId) {
      owners.require(sessionId, userId);
      const row = newest.get(sessionId);
      return row ? toTurn(row) : undefined;
    },
    events(sessionId, userId, q) {
      const { afterId, turnId, limit } = checkEventsQuery(q);
      owners.require(sessionId, userId);
      const rows =
        turnId === undefined
          ? eventsOf.all(sessionId, afterId, limit)
          : eventsOfTurn.all(sessionId, turnId, afterId, limit);
      return rows.map(toTurnEvent);
    },
    prune(before) {
      if (!(before instanceof Date) || Number.isNaN(before.getTime()))
        throw new StoreError('invalid-argument', 'before must be a valid Date');
      return immediate(db, () => pruneRows.run(before.getTime()).changes);
    },
  };
}
