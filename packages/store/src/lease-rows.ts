import { type LeaseHolder, StoreError } from './errors.js';
import { processGone } from './process-alive.js';

/** A row of `leases`: one per session with a holder. */
export interface LeaseRow {
  session_id: string;
  owner: string;
  host: string;
  pid: number;
  /** Where `pid` means something: this boot of this machine, this pid namespace. */
  pid_scope: string;
  acquired_at: number;
  expires_at: number;
}

export function holderOf(row: LeaseRow): LeaseHolder {
  return {
    owner: row.owner,
    host: row.host,
    pid: row.pid,
    since: new Date(row.acquired_at),
    expiresAt: new Date(row.expires_at),
  };
}

/** `session S is in use by process P on HOST since T`, carrying the holder. */
export function busy(sessionId: string, holder: LeaseHolder): StoreError {
  return new StoreError(
    'session-busy',
    `session ${sessionId} is in use by process ${holder.pid} on ${holder.host} since ${holder.since.toISOString()}`,
    {
      holder,
      hint: `wait for that process to finish; if it stopped without letting go, its lease expires at ${holder.expiresAt.toISOString()}`,
    },
  );
}

export function leaseLost(sessionId: string, row: LeaseRow | undefined): StoreError {
  if (!row) {
    return new StoreError('lease-lost', `the lease on session ${sessionId} was taken away (it is free now)`, {
      hint: 'acquire it again before writing',
    });
  }
  const holder = holderOf(row);
  return new StoreError(
    'lease-lost',
    `the lease on session ${sessionId} was taken over by process ${holder.pid} on ${holder.host} at ${holder.since.toISOString()}`,
    { holder, hint: 'this process stopped renewing it in time; stop writing to the session' },
  );
}

/**
 * Whether a lease row's holder is alive at `now` (ms, by the clock the back end trusts): not expired, and not a
 * process of this machine (`scope`, see `pidScope`) that is gone.
 */
export function isLive(row: LeaseRow, now: number, scope: string): boolean {
  if (row.expires_at <= now) return false;
  return !(row.pid_scope === scope && processGone(row.pid));
}

/** What a store knows of a lease it holds: it can be told the lease is lost. */
export interface HeldHere {
  lost(): void;
}

/**
 * The fence inside a write transaction on `sessionId`, given the lease row as that transaction sees it: throws
 * `lease-lost` when this owner held the lease (`held`) and another owner has it now, or lost it before
 * (`lostBefore`, whoever has the row now, if anyone); `session-busy` when it never held it and a live process does.
 */
export function checkFence<R extends LeaseRow>(
  sessionId: string,
  row: R | undefined,
  owner: string,
  held: HeldHere | undefined,
  lostBefore: boolean,
  live: (row: R) => boolean,
): void {
  if (held) {
    if (row?.owner === owner) return;
    held.lost();
    throw leaseLost(sessionId, row);
  }
  if (row?.owner === owner) return;
  // Before the free-row pass: a store that lost the lease must not write once the new holder let go either (its
  // late `runs.finish` would overwrite the run the takeover marked `died`); releasing or acquiring again clears it.
  if (lostBefore) throw leaseLost(sessionId, row);
  if (row && live(row)) throw busy(sessionId, holderOf(row));
}

/** Throws `lease-lost` unless this owner holds `key`'s lease (`held`) and the row says so too. */
export function checkHeld(
  key: string,
  row: LeaseRow | undefined,
  owner: string,
  held: HeldHere | undefined,
): void {
  if (held && row?.owner === owner) return;
  held?.lost();
  throw leaseLost(key, row?.owner === owner ? undefined : row);
}

/** The holder a store becomes when it takes a lease at `now` for `ttlMs`. */
export function newHolder(
  me: { owner: string; host: string; pid: number },
  now: number,
  ttlMs: number,
): LeaseHolder {
  return {
    owner: me.owner,
    host: me.host,
    pid: me.pid,
    since: new Date(now),
    expiresAt: new Date(now + ttlMs),
  };
}

/** The error of the runs a takeover finds still `running` under the previous holder. */
export function takenOverError(previous: LeaseHolder): string {
  return `died: process ${previous.pid} on ${previous.host} stopped holding the session`;
}
