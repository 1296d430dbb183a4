import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type AcquireOptions,
  checkFence,
  checkHeld,
  holderOf,
  isLive,
  type LeaseHolder,
  type LeaseRow,
  type LeasesRepo,
  newHolder,
  pidScope,
  type SessionLease,
  StoreError,
  takenOverError,
  validateLeaseKey,
  validateSessionId,
  waitForLease,
} from '@birdie/store/backend';
import { type Client, type Db, NOW_MS, type Queryable } from './db.js';
import { PgHeldLease, type PgLeaseBook } from './held-lease.js';
import { UnreleasedLeases } from './unreleased.js';

/** A lease row with the database's clock when it was read. */
export type LeaseRowAt = LeaseRow & { now: number };
type Row = LeaseRowAt;

/** How often a release that did not reach the server is tried again, at most. */
const RETRY_MS = 5_000;

/**
 * The store's leases on PostgreSQL: the SQLite store's rules over the same row (owner, host, pid, pid scope,
 * acquired, expires), with the database's clock for times, so that workers on several machines agree on expiry.
 * Acquiring is one transaction under a per-session advisory lock; writes to a session call `fence` inside their
 * transaction (`FOR SHARE` on the lease row, so a takeover waits for a write in flight and then wins).
 */
export class PgLeases implements PgLeaseBook {
  readonly owner = randomUUID();
  readonly host = hostname();
  readonly pid = process.pid;
  readonly scope = pidScope();
  private readonly held = new Map<string, PgHeldLease>();
  /** Leases this store lost to another owner and has not released: their writes get `lease-lost`. */
  private readonly lost = new Set<string>();
  /** The attempt at each key's lease in flight in this store (see `tryAcquire`). */
  private readonly acquiring = new Map<string, Promise<unknown>>();

  /** Released while the server could not be reached: retried once it is back. */
  private readonly unreleased: UnreleasedLeases;

  constructor(private readonly db: Db) {
    this.unreleased = new UnreleasedLeases(db, this.owner, (sessionId) => this.lockKey(sessionId));
  }

  repo(): LeasesRepo {
    return {
      acquire: (sessionId, opts) => this.acquire(sessionId, opts),
      holder: async (sessionId) => {
        validateLeaseKey(sessionId);
        const row = await this.row(this.db, sessionId);
        return row && (row.owner === this.owner || this.live(row)) ? holderOf(row) : undefined;
      },
      requestCancel: async (sessionId) => {
        validateSessionId(sessionId);
        const row = await this.row(this.db, sessionId);
        if (!row || (row.owner !== this.owner && !this.live(row))) return undefined;
        const { rowCount } = await this.db.query(
          `UPDATE leases SET cancel_at = ${NOW_MS} WHERE session_id = $1 AND owner = $2`,
          [sessionId, row.owner],
        );
        // Released (or taken over) between the two statements: nothing of that holder left to cancel.
        return (rowCount ?? 0) > 0 ? holderOf(row) : undefined;
      },
    };
  }

  /**
   * Inside a write transaction on `sessionId`: throws `lease-lost` when this process held the lease and another
   * owner has it now, `session-busy` when it never held it and a live process does.
   */
  async fence(client: Client, sessionId: string): Promise<void> {
    this.fenceRow(sessionId, await this.row(client, sessionId, ' FOR SHARE'));
  }

  /**
   * `fence` on the lease row (locked `FOR SHARE`, with the database's `now`) that a statement of the caller's
   * transaction read itself: `runs.finish` reads it in its UPDATE, so the fence costs no statement of its own.
   */
  fenceRow(sessionId: string, row: Row | undefined): void {
    const lease = this.held.get(sessionId);
    checkFence(sessionId, row, this.owner, lease, this.lost.has(sessionId), (r) => this.live(r));
  }

  /**
   * This store's lease `lease` on `sessionId`, to release inside the caller's transaction (`releaseRow`, then
   * `releasedWithRow()` after the commit); `invalid-argument` for another store's lease or another session's.
   */
  ownLease(lease: SessionLease, sessionId: string): PgHeldLease {
    if (!(lease instanceof PgHeldLease) || !lease.of(this) || lease.sessionId !== sessionId) {
      throw new StoreError(
        'invalid-argument',
        `release must be this store's lease on session ${sessionId}, the run's session`,
      );
    }
    return lease;
  }

  /** Inside a write transaction: drops this store's row of a lease it still holds (see `ownLease`). */
  async releaseRow(client: Client, lease: PgHeldLease): Promise<void> {
    if (lease.held)
      await client.query('DELETE FROM leases WHERE session_id = $1 AND owner = $2', [
        lease.sessionId,
        this.owner,
      ]);
  }

  /** Inside the transaction that deletes the session: refuses while another live process holds it, then drops the row. */
  async clearForDelete(client: Client, sessionId: string): Promise<void> {
    await this.fence(client, sessionId);
    void this.held.get(sessionId)?.end('deleted');
    this.lost.delete(sessionId);
    await client.query('DELETE FROM leases WHERE session_id = $1', [sessionId]);
  }

  /** Releases every lease this store holds (on close). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.values()].map((lease) => lease.release()));
    this.unreleased.clear();
  }

  /**
   * Inside a write transaction that needs `key`'s lease held by this store right now (a trigger claim): throws
   * `lease-lost` otherwise. Locks the row (`FOR SHARE`), so a takeover waits for the claim.
   */
  async requireHeld(client: Client, key: string): Promise<void> {
    const row = await this.row(client, key, ' FOR SHARE');
    checkHeld(key, row, this.owner, this.held.get(key));
  }

  private acquire(sessionId: string, opts: AcquireOptions = {}): Promise<SessionLease> {
    return waitForLease(sessionId, opts, (ttlMs) => this.tryAcquire(sessionId, ttlMs));
  }

  /**
   * One attempt of this store at a key at a time: two acquires of the same store object at the same moment would
   * otherwise both find no lease held here, and the second, reading the row the first just wrote (its own owner's),
   * would take it again. Queued, the second finds the first's lease held and is refused as any other holder's.
   */
  private tryAcquire(
    sessionId: string,
    ttlMs: number,
  ): Promise<{ lease: SessionLease } | { busy: LeaseHolder }> {
    const before = this.acquiring.get(sessionId);
    const attempt = (before ?? Promise.resolve())
      .catch(() => undefined)
      .then(() => this.tryAcquireNow(sessionId, ttlMs));
    this.acquiring.set(sessionId, attempt);
    const forget = () => {
      if (this.acquiring.get(sessionId) === attempt) this.acquiring.delete(sessionId);
    };
    attempt.then(forget, forget);
    return attempt;
  }

  private async tryAcquireNow(
    sessionId: string,
    ttlMs: number,
  ): Promise<{ lease: SessionLease } | { busy: LeaseHolder }> {
    const mine = this.held.get(sessionId);
    if (mine) return { busy: mine.holder };
    // Released by this store while the server was unreachable: this acquire finishes that release.
    const leftBehind = this.unreleased.take(sessionId);
    const outcome = await this.db
      .tx(async (client): Promise<{ busy: LeaseHolder } | { now: number; previous?: LeaseHolder }> => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.lockKey(sessionId)]);
        const { rows } = await client.query<Row>(
          `SELECT l.*, n.now FROM (SELECT ${NOW_MS} AS now) n LEFT JOIN leases l ON l.session_id = $1`,
          [sessionId],
        );
        const found = rows[0]!;
        const row = found.owner === null ? undefined : found;
        const now = found.now;
        if (row && row.owner !== this.owner && this.live(row)) return { busy: holderOf(row) };
        const previous = row && row.owner !== this.owner ? holderOf(row) : undefined;
        await client.query(
          `INSERT INTO leases (session_id, owner, host, pid, pid_scope, acquired_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, host = excluded.host, pid = excluded.pid,
           pid_scope = excluded.pid_scope, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at,
           cancel_at = NULL`,
          [sessionId, this.owner, this.host, this.pid, this.scope, now, now + ttlMs],
        );
        if (previous) {
          await client.query(
            `UPDATE runs SET status = 'died', ended_at = $1, error = $2 WHERE session_id = $3 AND status = 'running'`,
            [now, takenOverError(previous), sessionId],
          );
        }
        if (leftBehind) await this.unreleased.closeRuns(client, sessionId);
        return previous ? { now, previous } : { now };
      })
      .catch((error: unknown) => {
        if (leftBehind) this.unreleased.add(sessionId, RETRY_MS);
        throw error;
      });
    if ('busy' in outcome) return outcome;
    const holder = newHolder(this, outcome.now, ttlMs);
    const lease = new PgHeldLease(this, sessionId, holder, ttlMs, outcome.previous);
    this.held.set(sessionId, lease);
    this.lost.delete(sessionId);
    return { lease };
  }

  /** @internal Moves the row's expiry forward; undefined when this owner no longer has the row. */
  async renewRow(sessionId: string, ttlMs: number): Promise<number | undefined> {
    const { rows } = await this.db.query<{ expires_at: number }>(
      `UPDATE leases SET expires_at = ${NOW_MS} + $3 WHERE session_id = $1 AND owner = $2 RETURNING expires_at`,
      [sessionId, this.owner, ttlMs],
    );
    return rows[0]?.expires_at;
  }

  /** @internal Whether this owner's row for the session carries a cancel request. */
  async cancelRequested(sessionId: string): Promise<boolean> {
    const { rows } = await this.db.query<{ cancel_at: number | null }>(
      'SELECT cancel_at FROM leases WHERE session_id = $1 AND owner = $2',
      [sessionId, this.owner],
    );
    return (rows[0]?.cancel_at ?? null) !== null;
  }

  /** @internal */
  ownerRow(sessionId: string): Promise<Row | undefined> {
    return this.row(this.db, sessionId);
  }

  /** @internal A lease ends: `released` (the row goes), `lost` to another owner, or `deleted` with its session. */
  async ended(sessionId: string, lease: PgHeldLease, how: 'released' | 'lost' | 'deleted', wasHeld: boolean) {
    if (this.held.get(sessionId) === lease) this.held.delete(sessionId);
    if (how === 'lost') this.lost.add(sessionId);
    else this.lost.delete(sessionId);
    if (how === 'released' && wasHeld && !this.db.closed) {
      try {
        await this.db.query('DELETE FROM leases WHERE session_id = $1 AND owner = $2', [
          sessionId,
          this.owner,
        ]);
      } catch {
        // Unreachable or read-only server: retried until the server takes it (the row would expire on its own,
        // but the session would stay busy for other workers until then, and the turn's run would stay `running`).
        this.unreleased.add(sessionId, Math.max(50, Math.min(RETRY_MS, Math.floor(lease.ttlMs / 3))));
      }
    }
  }

  private lockKey(sessionId: string): string {
    return `birdie-lease:${this.db.schema}:${sessionId}`;
  }

  private async row(q: Queryable, sessionId: string, lock = ''): Promise<Row | undefined> {
    const { rows } = await q.query<Row>(
      `SELECT *, ${NOW_MS} AS now FROM leases WHERE session_id = $1${lock}`,
      [sessionId],
    );
    return rows[0];
  }

  /** A holder is live until its expiry by the database's clock; on this machine, a gone process lets go at once. */
  live(row: Row): boolean {
    return isLive(row, row.now, this.scope);
  }
}
