import { setTimeout as sleep } from 'node:timers/promises';
import type { LeaseHolder } from './errors.js';
import { validateLeaseKey } from './ids.js';
import type { AcquireOptions, SessionLease } from './interface.js';
import { busy } from './lease-rows.js';
import { checkAcquire } from './validate.js';

/** One attempt at a lease: taken, or the live holder that has it. */
export type LeaseAttempt = { lease: SessionLease } | { busy: LeaseHolder };

/**
 * `acquire` for every back end: tries, and while another holder is live waits with a growing pause (told once
 * through `onWait`) until `waitMs` is spent, then throws `session-busy`; `signal` aborts the wait.
 */
export async function waitForLease(
  sessionId: string,
  opts: AcquireOptions,
  attempt: (ttlMs: number) => LeaseAttempt | Promise<LeaseAttempt>,
): Promise<SessionLease> {
  validateLeaseKey(sessionId);
  const { waitMs, ttlMs } = checkAcquire(opts);
  const deadline = Date.now() + waitMs;
  let delay = 25;
  let told = false;
  for (;;) {
    opts.signal?.throwIfAborted();
    const tried = await attempt(ttlMs);
    if ('lease' in tried) return tried.lease;
    const left = deadline - Date.now();
    if (left <= 0) throw busy(sessionId, tried.busy);
    if (!told) {
      told = true;
      opts.onWait?.(tried.busy);
    }
    await sleep(Math.min(delay, left), undefined, opts.signal ? { signal: opts.signal } : {});
    delay = Math.min(delay * 2, 500);
  }
}
