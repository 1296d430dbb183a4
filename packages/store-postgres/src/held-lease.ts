import {
  type LeaseHolder,
  type LeaseRow,
  leaseLost,
  type SessionLease,
  StoreError,
} from '@birdie/store/backend';

/** What a held lease needs from the store's lease table (as `@birdie/store`'s `LeaseBook`, asynchronous). */
export interface PgLeaseBook {
  /** The new expiry (database clock, ms), or undefined when this owner no longer has the row. */
  renewRow(sessionId: string, ttlMs: number): Promise<number | undefined>;
  ownerRow(sessionId: string): Promise<LeaseRow | undefined>;
  /** Whether the row this store holds for the session carries a cancel request. */
  cancelRequested(sessionId: string): Promise<boolean>;
  /**
   * A lease ends: `released` by its holder (the row goes), `lost` to another owner (the row is theirs;
   * writes get `lease-lost` until released), or `deleted` with its session.
   */
  ended(
    sessionId: string,
    lease: PgHeldLease,
    how: 'released' | 'lost' | 'deleted',
    wasHeld: boolean,
  ): Promise<void>;
}

/** A lease this process holds: renewed by an `unref()`ed heartbeat every third of its TTL. */
export class PgHeldLease implements SessionLease {
  readonly previous?: LeaseHolder;
  private readonly timer: NodeJS.Timeout;
  private state: 'held' | 'released' | 'lost' = 'held';
  private beating = false;

  constructor(
    private readonly book: PgLeaseBook,
    readonly sessionId: string,
    readonly holder: LeaseHolder,
    readonly ttlMs: number,
    previous: LeaseHolder | undefined,
  ) {
    if (previous) this.previous = previous;
    this.timer = setInterval(() => void this.beat(), Math.max(50, Math.floor(ttlMs / 3)));
    // The heartbeat never keeps a process alive on its own.
    this.timer.unref();
  }

  async release(): Promise<void> {
    try {
      await this.end('released');
    } catch {
      // Giving a lease back never fails the caller: an unreleased row expires on its own.
    }
  }

  async assertHeld(): Promise<void> {
    if (this.state === 'released') {
      throw new StoreError('lease-lost', `the lease on session ${this.sessionId} was released`);
    }
    let row: LeaseRow | undefined;
    try {
      row = await this.book.ownerRow(this.sessionId);
    } catch (cause) {
      throw new StoreError('lease-lost', `cannot confirm the lease on session ${this.sessionId}`, { cause });
    }
    if (this.state === 'held' && row?.owner === this.holder.owner) return;
    this.lost();
    throw leaseLost(this.sessionId, row?.owner === this.holder.owner ? undefined : row);
  }

  async cancelRequested(): Promise<boolean> {
    if (this.state !== 'held') return false;
    try {
      return await this.book.cancelRequested(this.sessionId);
    } catch {
      // Unreachable or closed: no request seen yet; the caller asks again.
      return false;
    }
  }

  /** @internal Whether this lease is one `book` handed out. */
  of(book: PgLeaseBook): boolean {
    return this.book === book;
  }

  /** @internal Whether it is still held (neither released nor lost, as far as this process knows). */
  get held(): boolean {
    return this.state === 'held';
  }

  /** @internal Its row went in the caller's committed transaction (`runs.finish`'s `release`): stop renewing, forget it. */
  async releasedWithRow(): Promise<void> {
    if (this.state === 'released') return;
    this.state = 'released';
    clearInterval(this.timer);
    await this.book.ended(this.sessionId, this, 'released', false);
  }

  /** @internal Another owner has the row: stop renewing, forget it, keep the row alone. */
  lost(): void {
    if (this.state === 'held') void this.end('lost');
  }

  /** @internal */
  async end(how: 'released' | 'lost' | 'deleted'): Promise<void> {
    if (this.state === 'released') return;
    const wasHeld = this.state === 'held';
    this.state = how === 'lost' ? 'lost' : 'released';
    clearInterval(this.timer);
    await this.book.ended(this.sessionId, this, how, wasHeld);
  }

  private async beat(): Promise<void> {
    if (this.state !== 'held' || this.beating) return;
    this.beating = true;
    try {
      const expiresAt = await this.book.renewRow(this.sessionId, this.ttlMs);
      if (expiresAt === undefined) this.lost();
      else if (this.state === 'held') this.holder.expiresAt = new Date(expiresAt);
    } catch {
      // Unreachable or closed: try again on the next beat; the lease lasts a whole TTL.
    } finally {
      this.beating = false;
    }
  }
}
