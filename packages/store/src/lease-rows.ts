import { type LeaseHolder, StoreError } from './errors.js';

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
