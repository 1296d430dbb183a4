import type { Store } from '@birdie/store';
import { ApiError } from './errors.js';
import { apiErrorOf } from './store-errors.js';

/**
 * Per-user limits on turns, counted in the store's run log, so they hold across every worker on one store (unlike
 * the per-token request rate, which each process counts in memory). A run is what a turn request or an approval's
 * continuation starts; subagent runs belong to their turn and are not counted.
 */
export interface TurnLimits {
  /** Runs of the user running at once, on all workers. */
  concurrentTurns?: number;
  /** Runs of the user started in the last 60 seconds, on all workers. */
  turnsPerMinute?: number;
}

const MINUTE_MS = 60_000;

/**
 * Refuses a turn of `userId` over a limit: 429 `concurrent-turns-limit`, or 429 `turns-per-minute-limit` with
 * `Retry-After` (when the oldest run of the last minute leaves the window). Checked before the turn starts: two
 * requests of one user that arrive at the same instant on two workers may both pass (each reads the count before
 * the other's run is logged), so a limit can be exceeded by the requests racing it, never by more.
 */
export async function checkTurnLimits(
  store: Store,
  userId: string,
  limits: TurnLimits,
  now: () => number = Date.now,
): Promise<void> {
  try {
    if (limits.concurrentTurns !== undefined) await checkConcurrent(store, userId, limits.concurrentTurns);
    if (limits.turnsPerMinute !== undefined)
      await checkPerMinute(store, userId, limits.turnsPerMinute, now());
  } catch (error) {
    throw apiErrorOf(error) ?? error;
  }
}

async function checkConcurrent(store: Store, userId: string, limit: number): Promise<void> {
  const running = () => store.runs.list({ userId, status: 'running', parentRunId: null, limit });
  if ((await running()).length < limit) return;
  // A worker that died mid-turn leaves its runs `running` until someone reaps them (its lease has expired):
  // without this, a crash would hold the user's slots for good.
  if ((await store.runs.reap()).length > 0 && (await running()).length < limit) return;
  throw new ApiError(
    'concurrent-turns-limit',
    `${userId} has ${limit} turn(s) running, the most allowed at once (concurrent turns limit); try again when one ends`,
  );
}

async function checkPerMinute(store: Store, userId: string, limit: number, now: number): Promise<void> {
  const recent = await store.runs.list({
    userId,
    since: new Date(now - MINUTE_MS),
    parentRunId: null,
    limit,
  });
  if (recent.length < limit) return;
  // Newest first: the last one listed is the oldest of the window; a slot frees when it leaves it.
  const oldest = recent[recent.length - 1]!.startedAt.getTime();
  const retryAfter = Math.max(1, Math.ceil((oldest + MINUTE_MS - now) / 1000));
  throw new ApiError(
    'turns-per-minute-limit',
    `${userId} started ${limit} turn(s) in the last minute, the most allowed (turns per minute limit); retry in ${retryAfter} s`,
    { retryAfter },
  );
}
