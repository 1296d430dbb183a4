import { type Client, type Db, NOW_MS } from './db.js';

/** Why a run left `running` by a lease that could not be released is closed (the run log's `error`). */
export const UNRECORDED_END =
  'died: the turn ended while the database server could not be reached, so its end was not recorded';

/**
 * Leases this store released while the server could not be reached (it restarted, the network dropped). The turn
 * that held one most likely could not record its end either. Left alone, its row would keep the session busy for
 * other workers until the TTL ran out, and its run would say `running` for ever. So the release is retried until
 * the server takes it: the row goes, and this store's runs still `running` on the session become `died`. Acquiring
 * the session again in this store does the same in its own transaction.
 */
export class UnreleasedLeases {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly retrying = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly owner: string,
    /** The advisory lock key of a session's lease: a retry and an acquire of the same session take turns. */
    private readonly lockKey: (sessionId: string) => string,
  ) {}

  /** Retries the release of `sessionId` every `everyMs` (an `unref()`ed timer) until the server takes it. */
  add(sessionId: string, everyMs: number): void {
    if (this.timers.has(sessionId) || this.db.closed) return;
    const timer = setInterval(() => void this.retry(sessionId), everyMs);
    timer.unref();
    this.timers.set(sessionId, timer);
  }

  /**
   * Called (synchronously) before this store acquires `sessionId` again: stops the retries, and says whether the
   * session was left behind, in which case the acquire's transaction calls `closeRuns`.
   */
  take(sessionId: string): boolean {
    const timer = this.timers.get(sessionId);
    if (!timer) return false;
    clearInterval(timer);
    this.timers.delete(sessionId);
    return true;
  }

  /** Inside a transaction holding the session's lease lock: this store's runs still `running` on it become `died`. */
  async closeRuns(client: Client, sessionId: string): Promise<void> {
    await client.query(
      `UPDATE runs SET status = 'died', ended_at = ${NOW_MS}, error = $1
       WHERE session_id = $2 AND owner = $3 AND status = 'running'`,
      [UNRECORDED_END, sessionId, this.owner],
    );
  }

  /** On close: no more retries (the rows expire on their own). */
  clear(): void {
    for (const timer of this.timers.values()) clearInterval(timer);
    this.timers.clear();
  }

  private async retry(sessionId: string): Promise<void> {
    if (this.retrying.has(sessionId) || this.db.closed) return;
    this.retrying.add(sessionId);
    try {
      const done = await this.db.tx(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [this.lockKey(sessionId)]);
        // Acquired again by this store meanwhile: that acquire closed the runs, and the row is its lease now.
        if (!this.timers.has(sessionId)) return false;
        await client.query('DELETE FROM leases WHERE session_id = $1 AND owner = $2', [
          sessionId,
          this.owner,
        ]);
        await this.closeRuns(client, sessionId);
        return true;
      });
      if (done) this.take(sessionId);
    } catch {
      // Still unreachable (or closed): the next tick tries again.
    } finally {
      this.retrying.delete(sessionId);
    }
  }
}
