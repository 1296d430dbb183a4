import { StoreError } from './errors.js';

// Session ids become thread ids and may end up in file names or logs: keep them boring. A session numbered among
// its user's own (a shared server's) carries the user before a `~`, a character no user id has.
const SESSION_ID = /^(?:([A-Za-z0-9][A-Za-z0-9._@-]{0,63})~)?(\d{4})-(\d{2})-(\d{2})_([1-9]\d{0,8})$/;
// User ids: a login-like name. No path separators, no leading dot, no "..".
const USER_ID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/**
 * Throws `StoreError('invalid-id')` unless `id` looks like `YYYY-MM-DD_N` (numbered across the store) or
 * `USER~YYYY-MM-DD_N` (numbered among the user's own sessions).
 */
export function validateSessionId(id: unknown): string {
  const match = typeof id === 'string' ? SESSION_ID.exec(id) : null;
  if (!match || match[1]?.includes('..'))
    throw new StoreError(
      'invalid-id',
      `invalid session id ${describe(id)}: expected YYYY-MM-DD_N or USER~YYYY-MM-DD_N`,
    );
  const month = Number(match[3]);
  const day = Number(match[4]);
  if (month < 1 || month > 12 || day < 1 || day > 31) {
    throw new StoreError('invalid-id', `invalid session id ${describe(id)}: not a calendar date`);
  }
  return id as string;
}

/**
 * The id of a session numbered `seq` on `day` in `scope`: the store's numbering (`''`, a single user's CLI) gives
 * `YYYY-MM-DD_N`, a user's own numbering (their id as the scope) `USER~YYYY-MM-DD_N`.
 */
export function sessionIdFor(scope: string, day: string, seq: number): string {
  return scope === '' ? `${day}_${seq}` : `${scope}~${day}_${seq}`;
}

/** Throws `StoreError('invalid-id')` unless `id` is 1–64 of `[A-Za-z0-9._@-]`, starting alphanumeric, without `..`. */
export function validateUserId(id: unknown): string {
  if (typeof id !== 'string' || !USER_ID.test(id) || id.includes('..')) {
    throw new StoreError(
      'invalid-id',
      `invalid user id ${describe(id)}: expected 1-64 of [A-Za-z0-9._@-], starting with a letter or digit, no ".."`,
    );
  }
  return id;
}

// Trigger lease keys: `trigger:` and a name without blanks or control characters (agent names may be any script).
const TRIGGER_KEY = /^trigger:[^\s\p{Cc}]{1,200}$/u;

// Turn slot keys: `turn-slot:<user>:<n>`, one of a user's N concurrent turns on a shared server (`@birdie/server`'s
// `admitTurn` takes the first free one).
const TURN_SLOT_KEY = /^turn-slot:([A-Za-z0-9][A-Za-z0-9._@-]{0,63}):(0|[1-9]\d{0,5})$/;

/**
 * A lease key: a session id, a trigger key `trigger:<name>` or a turn slot key `turn-slot:<user>:<n>`;
 * `StoreError('invalid-id')` otherwise.
 */
export function validateLeaseKey(key: unknown): string {
  if (typeof key === 'string' && key.startsWith('turn-slot:')) {
    const match = TURN_SLOT_KEY.exec(key);
    if (!match || match[1]!.includes('..'))
      throw new StoreError(
        'invalid-id',
        `invalid turn slot key ${describe(key)}: expected turn-slot:USER:N (a user id and a slot number)`,
      );
    return key;
  }
  if (typeof key === 'string' && key.startsWith('trigger:')) {
    if (!TRIGGER_KEY.test(key))
      throw new StoreError(
        'invalid-id',
        `invalid trigger key ${describe(key)}: expected trigger: and 1-200 characters without blanks`,
      );
    return key;
  }
  return validateSessionId(key);
}

/** The local calendar day of `date` as `YYYY-MM-DD`. */
export function localDay(date: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function describe(value: unknown): string {
  if (typeof value !== 'string') return `(${typeof value})`;
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}
