import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Db, immediate, writeEpoch } from './db.js';
import { type LeaseHolder, StoreError } from './errors.js';
import { HeldLease, type LeaseBook } from './held-lease.js';
import { validateLeaseKey, validateSessionId } from './ids.js';
import type { AcquireOptions, LeasesRepo, SessionLease, SyncOf } from './interface.js';
import {
  checkFence,
  checkHeld,
  holderOf,
  isLive,
  type LeaseRow,
  newHolder,
  takenOverError,
} from './lease-rows.js';
import { waitForLease } from './lease-wait.js';
import { pidScope } from './process-alive.js';

/**
 * The store's leases: one row per session in `leases` (owner, host, pid, acquired, expires). Wall-clock
 * expiry makes the row meaningful to another machine; the pid check (same boot, same pid namespace) makes a crash on this
 * machine cost nothing. Writes to a session (checkpoints, runs, the tool journal) call `fence` inside
 * their transaction, so a process that lost its lease cannot interleave with the new holder.
 */
export class Leases implements LeaseBook {
  readonly owner = randomUUID();
  readonly host = hostname();
  readonly scope = pidScope();
  readonly pid = process.pid;
  private readonly held = new Map<string, HeldLease>();
  /** Leases this store lost to another owner and has not released: their writes get `lease-lost`. */
  private readonly lost = new Set<string>();
  private readonly select;
  private readonly insert;
  private readonly renew;
  private readonly remove;
  private readonly removeAny;
  private readonly markCancel;
  private readonly cancelOf;
  private readonly markDied;
  /**
   * Lease rows as write transactions last read them, with the `writeEpoch` they were read under: the fence runs in
   * every write to a session (a dozen per turn), and while no other connection committed the row is what it was.
   * This store's own changes to a row drop its entry.
   */
  private readonly seen = new Map<string, { row: LeaseRow | undefined; epoch: number }>();

  constructor(private readonly db: Db) {
    this.select = db.prepare<[string], LeaseRow>('SELECT * FROM leases WHERE session_id = ?');
    this.insert = db.prepare(
      `INSERT INTO leases (session_id, owner, host, pid, pid_scope, acquired_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, host = excluded.host, pid = excluded.pid,
         pid_scope = excluded.pid_scope, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at,
         cancel_at = NULL`,
    );
    this.markCancel = db.prepare('UPDATE leases SET cancel_at = ? WHERE session_id = ? AND owner = ?');
    this.cancelOf = db.prepare<[string, string], { cancel_at: number | null }>(
      'SELECT cancel_at FROM leases WHERE session_id = ? AND owner = ?',
    );
    this.renew = db.prepare('UPDATE leases SET expires_at = ? WHERE session_id = ? AND owner = ?');
    this.remove = db.prepare('DELETE FROM leases WHERE session_id = ? AND owner = ?');
    this.removeAny = db.prepare('DELETE FROM leases WHERE session_id = ?');
    this.markDied = db.prepare(
      `UPDATE runs SET status = 'died', ended_at = ?, error = ? WHERE session_id = ? AND status = 'running'`,
    );
  }

  repo(): SyncOf<LeasesRepo> {
    return {
      acquire: (sessionId, opts) => this.acquire(sessionId, opts),
      holder: (sessionId) => {
        validateLeaseKey(sessionId);
        const row = this.select.get(sessionId);
        return row && (row.owner === this.owner || this.live(row, Date.now())) ? holderOf(row) : undefined;
      },
      requestCancel: (sessionId) => {
        validateSessionId(sessionId);
        return immediate(this.db, () => {
          const now = Date.now();
          const row = this.select.get(sessionId);
          if (!row || (row.owner !== this.owner && !this.live(row, now))) return undefined;
          this.seen.delete(sessionId);
          this.markCancel.run(now, sessionId, row.owner);
          return holderOf(row);
        });
      },
    };
  }

  /**
   * Inside a write transaction on `sessionId`: throws `lease-lost` when this process held the lease
   * and another owner has it now, `session-busy` when it never held it and a live process does.
   */
  fence(sessionId: string): void {
    this.fenceRow(sessionId, this.rowInTransaction(sessionId));
  }

  /**
   * `fence` on the lease row a statement of the caller's transaction read itself (`runs.finish`'s UPDATE … RETURNING
   * reads it in the same statement): no query of its own.
   */
  fenceRow(sessionId: string, row: LeaseRow | undefined): void {
    const lease = this.held.get(sessionId);
    checkFence(sessionId, row, this.owner, lease, this.lost.has(sessionId), (r) => this.live(r, Date.now()));
  }

  /**
   * Inside the transaction that deletes the session: refuses while another live process holds it,
   * then drops the row (and this store's own lease on it).
   */
  clearForDelete(sessionId: string): void {
    this.fence(sessionId);
    this.held.get(sessionId)?.end('deleted');
    this.lost.delete(sessionId);
    this.seen.delete(sessionId);
    this.removeAny.run(sessionId);
  }

  /**
   * This store's lease `lease` on `sessionId`, to release inside the caller's transaction (`releaseRow`, then
   * `releasedWithRow()` after the commit); `invalid-argument` for another store's lease or another session's.
   */
  ownLease(lease: SessionLease, sessionId: string): HeldLease {
    if (!(lease instanceof HeldLease) || !lease.of(this) || lease.sessionId !== sessionId) {
      throw new StoreError(
        'invalid-argument',
        `release must be this store's lease on session ${sessionId}, the run's session`,
      );
    }
    return lease;
  }

  /** Inside a write transaction: drops this store's row of a lease it still holds (see `ownLease`). */
  releaseRow(lease: HeldLease): void {
    this.seen.delete(lease.sessionId);
    if (lease.held) this.remove.run(lease.sessionId, this.owner);
  }

  /** Releases every lease this store holds (on close). */
  releaseAll(): void {
    for (const lease of [...this.held.values()]) lease.end('released');
  }

  /**
   * Inside a write transaction that needs `key`'s lease held by this store right now (a trigger claim): throws
   * `lease-lost` otherwise.
   */
  requireHeld(key: string): void {
    const lease = this.held.get(key);
    const row = this.rowInTransaction(key);
    checkHeld(key, row, this.owner, lease);
  }

  /** Inside a write transaction: `sessionId`'s lease row, read once per `writeEpoch`. */
  private rowInTransaction(sessionId: string): LeaseRow | undefined {
    const seen = this.seen.get(sessionId);
    if (seen?.epoch === writeEpoch(this.db)) return seen.row;
    const row = this.select.get(sessionId);
    this.see(sessionId, row);
    return row;
  }

  /** Inside a write transaction: `sessionId`'s lease row is `row` for as long as the write epoch stays. */
  private see(sessionId: string, row: LeaseRow | undefined): void {
    this.seen.delete(sessionId);
    this.seen.set(sessionId, { row, epoch: writeEpoch(this.db) });
    // Sessions written to lately; the oldest go first.
    if (this.seen.size > 256) this.seen.delete(this.seen.keys().next().value as string);
  }

  private acquire(sessionId: string, opts: AcquireOptions = {}): Promise<SessionLease> {
    return waitForLease(sessionId, opts, (ttlMs) => this.tryAcquire(sessionId, ttlMs));
  }

  private tryAcquire(sessionId: string, ttlMs: number): { lease: SessionLease } | { busy: LeaseHolder } {
    const mine = this.held.get(sessionId);
    if (mine) return { busy: mine.holder };
    const outcome = immediate(
      this.db,
      (): { busy: LeaseHolder } | { now: number; previous?: LeaseHolder } => {
        const now = Date.now();
        const row = this.select.get(sessionId);
        if (row && row.owner !== this.owner && this.live(row, now)) return { busy: holderOf(row) };
        const previous = row && row.owner !== this.owner ? holderOf(row) : undefined;
        this.insert.run(sessionId, this.owner, this.host, this.pid, this.scope, now, now + ttlMs);
        // The row as this transaction wrote it: the turn's next write (its run's start) fences without reading it.
        // Should the commit fail, the rollback moves the write epoch on and this entry is not trusted.
        this.see(sessionId, {
          session_id: sessionId,
          owner: this.owner,
          host: this.host,
          pid: this.pid,
          pid_scope: this.scope,
          acquired_at: now,
          expires_at: now + ttlMs,
        });
        if (previous) {
          this.markDied.run(now, takenOverError(previous), sessionId);
        }
        return previous ? { now, previous } : { now };
      },
    );
    if ('busy' in outcome) return outcome;
    const holder = newHolder(this, outcome.now, ttlMs);
    const lease = new HeldLease(this, sessionId, holder, ttlMs, outcome.previous);
    this.held.set(sessionId, lease);
    this.lost.delete(sessionId);
    return { lease };
  }

  renewRow(sessionId: string, expiresAt: number): boolean {
    this.seen.delete(sessionId);
    return this.renew.run(expiresAt, sessionId, this.owner).changes > 0;
  }

  cancelRequested(sessionId: string): boolean {
    return (this.cancelOf.get(sessionId, this.owner)?.cancel_at ?? null) !== null;
  }

  ownerRow(sessionId: string): LeaseRow | undefined {
    return this.select.get(sessionId);
  }

  ended(sessionId: string, lease: HeldLease, how: 'released' | 'lost' | 'deleted', wasHeld: boolean): void {
    if (this.held.get(sessionId) === lease) this.held.delete(sessionId);
    if (how === 'lost') this.lost.add(sessionId);
    else this.lost.delete(sessionId);
    if (how === 'released' && wasHeld && this.db.open) {
      try {
        this.seen.delete(sessionId);
        immediate(this.db, () => this.remove.run(sessionId, this.owner));
      } catch {
        // Read-only or full disk: the row expires on its own, and this pid is gone soon.
      }
    }
  }

  /** Whether a lease row's holder is alive: not expired, and not a process of this machine that is gone. */
  live(row: LeaseRow, now: number): boolean {
    return isLive(row, now, this.scope);
  }
}
