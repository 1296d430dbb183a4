/**
 * A token bucket per key (per API token): `requests` per `perMs`, refilled continuously, bursts up to `requests`.
 * Buckets idle for longer than it takes to refill are forgotten, so memory follows the active tokens.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private lastSweep = 0;

  constructor(
    private readonly requests: number,
    private readonly perMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request from `key`'s bucket: 0 when allowed, else the seconds until one is. */
  take(key: string): number {
    const now = this.now();
    this.sweep(now);
    const rate = this.requests / this.perMs;
    const bucket = this.buckets.get(key) ?? { tokens: this.requests, at: now };
    bucket.tokens = Math.min(this.requests, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000));
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.perMs) return;
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) if (now - bucket.at > this.perMs) this.buckets.delete(key);
  }
}
