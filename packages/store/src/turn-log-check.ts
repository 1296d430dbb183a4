// Argument checks and row shapes of the API's turn log, shared by every back end.
import { checkCount, checkOptions } from './checks.js';
import { StoreError } from './errors.js';
import type { TurnEventRecord, TurnRecord, TurnState } from './interface.js';

/** An `Idempotency-Key`: 1-255 visible ASCII characters (what the IETF draft and the usual clients send). */
const KEY = /^[\x21-\x7e]{1,255}$/;

export function checkIdempotencyKey(key: unknown): string {
  if (typeof key !== 'string' || !KEY.test(key))
    throw new StoreError(
      'invalid-argument',
      'an idempotency key must be 1-255 visible ASCII characters (no spaces)',
    );
  return key;
}

export function checkTurnId(id: unknown): number {
  if (!Number.isSafeInteger(id) || (id as number) < 1)
    throw new StoreError('invalid-argument', 'a turn id must be a positive integer');
  return id as number;
}

/** A request digest or an end status: a short token of text. */
export function checkTurnLabel(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(value))
    throw new StoreError('invalid-argument', `${field} must be 1-128 visible ASCII characters`);
  return value;
}

/** Each event an object with a non-empty string `type`; returned as its JSON text, ready to store. */
export function checkTurnEvents(events: unknown): Array<{ type: string; json: string }> {
  if (!Array.isArray(events)) throw new StoreError('invalid-argument', 'events must be an array');
  return events.map((event) => {
    const type = (event as { type?: unknown } | null)?.type;
    if (
      event === null ||
      typeof event !== 'object' ||
      Array.isArray(event) ||
      typeof type !== 'string' ||
      !type
    )
      throw new StoreError('invalid-argument', 'each event must be an object with a string "type"');
    return { type, json: JSON.stringify(event) };
  });
}

export const DEFAULT_EVENTS_LIMIT = 500;

export function checkEventsQuery(query?: { afterId?: number; turnId?: number; limit?: number }): {
  afterId: number;
  turnId: number | undefined;
  limit: number;
} {
  const q = checkOptions(query, 'query');
  const limit = q.limit === undefined ? DEFAULT_EVENTS_LIMIT : checkCount(q.limit, 'limit');
  return {
    afterId: q.afterId === undefined ? 0 : checkCount(q.afterId, 'afterId'),
    turnId: q.turnId === undefined ? undefined : checkTurnId(q.turnId),
    limit: Math.min(Math.max(limit, 1), 5000),
  };
}

export const TURN_COLUMNS =
  'id, session_id, user_id, idem_key, request_digest, state, status, created_at, updated_at, ended_at';

export interface TurnRow {
  id: number;
  session_id: string;
  user_id: string;
  idem_key: string | null;
  request_digest: string | null;
  state: string;
  status: string | null;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

export function toTurn(row: TurnRow): TurnRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    userId: row.user_id,
    ...(row.idem_key !== null ? { key: row.idem_key } : {}),
    ...(row.request_digest !== null ? { requestDigest: row.request_digest } : {}),
    state: row.state as TurnState,
    ...(row.status !== null ? { status: row.status } : {}),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    ...(row.ended_at !== null ? { endedAt: new Date(row.ended_at) } : {}),
  };
}

export interface TurnEventRow {
  id: number;
  turn_id: number;
  data: string;
  at: number;
}

export function toTurnEvent(row: TurnEventRow): TurnEventRecord {
  return { id: row.id, turnId: row.turn_id, event: JSON.parse(row.data), at: new Date(row.at) };
}

export function endedTurnError(turnId: number): StoreError {
  return new StoreError('invalid-argument', `turn ${turnId} has ended: no more events can be recorded`);
}

export function missingTurnError(turnId: number): StoreError {
  return new StoreError('not-found', `no turn ${turnId}`);
}
