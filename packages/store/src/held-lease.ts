import { type LeaseHolder, StoreError } from './errors.js';
import type { SessionLease } from './interface.js';
import { type LeaseRow, leaseLost } from './lease-rows.js';

/** What a held lease needs from the store's lease table. */
export interface LeaseBook {
  renewRow(sessionId: string, expiresAt: number): boolean;
  ownerRow(sessionId: string): LeaseRow | undefined;
  /** Whether the row this store holds for the session carries a cancel request. */
  cancelRequested(sessionId: string): boolean;
  /**
   * A lease ends: `released` by its holder (the row goes), `lost` to another owner (the row is theirs;
   * writes get `lease-lost` until released), or `deleted` with its session.
   */
  ended(sessionId: string, lease: HeldLease, how: 'released' | 'lost' | 'deleted', wasHeld: boolean): void;
}

/** A lease this process holds: renewed by an `unref()`ed heartbeat every third of its TTL. */
export class HeldLease implements SessionLease {
  readonly previous?: LeaseHolder;
  private readonly timer: NodeJS.Timeout;
  private state: 'held' | 'released' | 'lost' = 'held';

  constructor(
    private readonly book: LeaseBook,
    readonly sessionId: string,
    readonly holder: LeaseHolder,
    ttlMs: number,
    previous: LeaseHolder | undefined,
  ) {
    if (previous) this.previous = previous;
    this.timer = setInterval(() => this.beat(ttlMs), Math.max(50, Math.floor(ttlMs / 3)));
    // The heartbeat never keeps a process alive on its own.
    this.timer.unref();
  }

  release(): Promise<void> {
    try {
      this.end('released');
    } catch {
      // Giving a lease back never fails the caller: an unreleased row expires on its own.
    }
    return Promise.resolve();
  }

  assertHeld(): Promise<void> {
    try {
      this.checkHeld();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  cancelRequested(): Promise<boolean> {
    if (this.state !== 'held') return Promise.resolve(false);
    try {
      return Promise.resolve(this.book.cancelRequested(this.sessionId));
    } catch {
      // Busy or closed: no request seen yet; the caller asks again.
      return Promise.resolve(false);
    }
  }

  /** @internal `assertHeld`, synchronously. */
  checkHeld(): void {
    if (this.state === 'released') {
      throw new StoreError('lease-lost', `the lease on session ${this.sessionId} was released`);
    }
    let row: LeaseRow | undefined;
    try {
      row = this.book.ownerRow(this.sessionId);
    } catch (cause) {
      throw new StoreError('lease-lost', `cannot confirm the lease on session ${this.sessionId}`, { cause });
    }
    if (this.state === 'held' && row?.owner === this.holder.owner) return;
    this.lost();
    throw leaseLost(this.sessionId, row?.owner === this.holder.owner ? undefined : row);
  }

  /** @internal Whether this lease is one `book` handed out. */
  of(book: LeaseBook): boolean {
    return this.book === book;
  }

  /** @internal Whether it is still held (neither released nor lost, as far as this process knows). */
  get held(): boolean {
    return this.state === 'held';
  }

  /** @internal Its row went in the caller's committed transaction (`runs.finish`'s `release`): stop renewing, forget it. */
  releasedWithRow(): void {
    if (this.state === 'released') return;
    this.state = 'released';
    clearInterval(this.timer);
    this.book.ended(this.sessionId, this, 'released', false);
  }

  /** @internal Another owner has the row: stop renewing, forget it, keep the row alone. */
  lost(): void {
    if (this.state === 'held') this.end('lost');
  }

  /** @internal */
  end(how: 'released' | 'lost' | 'deleted'): void {
    if (this.state === 'released') return;
    const wasHeld = this.state === 'held';
    this.state = how === 'lost' ? 'lost' : 'released';
    clearInterval(this.timer);
    this.book.ended(this.sessionId, this, how, wasHeld);
  }

  private beat(ttlMs: number): void {
    if (this.state !== 'held') return;
    const expiresAt = Date.now() + ttlMs;
    try {
      if (this.book.renewRow(this.sessionId, expiresAt)) this.holder.expiresAt = new Date(expiresAt);
      else this.lost();
    } catch {
      // Busy, full or closed: try again on the next beat; the lease lasts a whole TTL.
    }
  }
}
