import type { Store } from '@birdie/store';
import { isStoreError } from '@birdie/store/errors';
import { ApiError } from './errors.js';
import { apiErrorOf } from './store-errors.js';

/**
 * Per-user limits on turns, kept in the store (slot leases, admissions, the run log), so they hold across every worker on one
 * store (unlike the per-token request rate, which each process counts in memory). A run is what a turn request or an
 * approval's continuation starts; subagent runs belong to their turn and are not counted.
 */
export interface TurnLimits {
  /** Runs of the user running at once, on all workers. */
  concurrentTurns?: number;
  /** Runs of the user started in the last 60 seconds, on all workers. */
  turnsPerMinute?: number;
}

const MINUTE_MS = 60_000;

/** A turn let in by `admitTurn`: the slot it holds, given back when the turn ends; its place in the minute. */
export interface TurnAdmission {
  /** Gives the user's slot back (idempotent, never rejects). Call it when the turn ends, however it ends. */
  release(): Promise<void>;
  /**
   * For a turn refused after it was admitted, before it started a run (session busy, workspace quota): gives its slot
   * back and takes its place in the minute back too, so that it does not count. Idempotent, never rejects.
   */
  withdraw(): Promise<void>;
}

const NO_SLOT: TurnAdmission = { release: () => Promise.resolve(), withdraw: () => Promise.resolve() };

/**
 * Lets a turn of `userId` in, or refuses it over a limit: 429 `concurrent-turns-limit`, or 429
 * `turns-per-minute-limit` with `Retry-After` (when the first turn of the last minute leaves the window).
 *
 * With `concurrentTurns` N, the turn takes one of the user's N slots, each a store lease (`turn-slot:<user>:<n>`,
 * the first free one): leases are acquired atomically, so requests of one user arriving at the same instant, on one
 * worker or several on one store, never run more than N turns. The slot is held until `release()` (the turn's end)
 * and, like any lease, expires if the process dies. The user's runs still `running` in the run log count too
 * (runs started without a slot: the CLI on the same store, an older worker).
 *
 * With `turnsPerMinute` N, the turn takes one of the user's N places in a sliding minute: a store admission
 * (`admissions.admit`, key `turns-per-minute:<user>`) kept for 60 s from `now()`, never renewed and kept when the
 * process exits. Admission is atomic (count and record in one transaction), so requests racing for the last places,
 * on one worker or several on one store, never start more than N turns in any minute; `Retry-After` is when the
 * first of them leaves the window. A lease could not hold it: a lease lasts while its process lives and renews it.
 * The user's runs started in the last 60 s in the run log count too (runs started without an admission: the CLI on
 * the same store, an older worker).
 */
export async function admitTurn(
  store: Store,
  userId: string,
  limits: TurnLimits,
  now: () => number = Date.now,
): Promise<TurnAdmission> {
  let admission = NO_SLOT;
  try {
    if (limits.concurrentTurns !== undefined) {
      admission = await takeSlot(store, userId, limits.concurrentTurns);
      await checkConcurrent(store, userId, limits.concurrentTurns);
    }
    if (limits.turnsPerMinute !== undefined) {
      const at = now();
      await checkPerMinute(store, userId, limits.turnsPerMinute, at);
      const place = await takePlace(store, userId, limits.turnsPerMinute, at);
      const slot = admission;
      admission = {
        release: () => slot.release(),
        withdraw: async () => {
          await slot.release();
          await place();
        },
      };
    }
    return admission;
  } catch (error) {
    await admission.release();
    throw apiErrorOf(error) ?? error;
  }
}

/** The first free one of the user's `limit` slots, as a lease; refused when every one is held. */
async function takeSlot(store: Store, userId: string, limit: number): Promise<TurnAdmission> {
  for (let n = 0; n < limit; n++) {
    try {
      const lease = await store.leases.acquire(`turn-slot:${userId}:${n}`);
      return { release: () => lease.release(), withdraw: () => lease.release() };
    } catch (error) {
      // Held by a live turn (here or on another worker): try the next slot.
      if (!isStoreError(error, 'session-busy')) throw error;
    }
  }
  throw concurrentLimit(userId, limit);
}

function concurrentLimit(userId: string, limit: number): ApiError {
  return new ApiError(
    'concurrent-turns-limit',
    `${userId} has ${limit} turn(s) running, the most allowed at once (concurrent turns limit); try again when one ends`,
  );
}

async function checkConcurrent(store: Store, userId: string, limit: number): Promise<void> {
  const running = () => store.runs.list({ userId, status: 'running', parentRunId: null, limit });
  if ((await running()).length < limit) return;
  // A worker that died mid-turn leaves its runs `running` until someone reaps them (its lease has expired):
  // without this, a crash would hold the user's slots for good.
  if ((await store.runs.reap()).length > 0 && (await running()).length < limit) return;
  throw concurrentLimit(userId, limit);
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
  throw perMinuteLimit(userId, limit, recent[recent.length - 1]!.startedAt.getTime() + MINUTE_MS, now);
}

/** One of the user's `limit` places in the sliding minute; refused when every one is taken. Its withdrawal. */
async function takePlace(
  store: Store,
  userId: string,
  limit: number,
  now: number,
): Promise<() => Promise<void>> {
  const key = `turns-per-minute:${userId}`;
  const result = await store.admissions.admit(key, { limit, windowMs: MINUTE_MS, now: new Date(now) });
  if (!result.admitted) throw perMinuteLimit(userId, limit, result.retryAt.getTime(), now);
  let withdrawn = false;
  return async () => {
    if (withdrawn) return;
    withdrawn = true;
    // Best effort: left in place, it only counts until its minute ends.
    await store.admissions.withdraw(key, result.id).catch(() => undefined);
  };
}

/** The 429 for a user over `limit` turns in a minute, whose next place frees at `freeAt`. */
function perMinuteLimit(userId: string, limit: number, freeAt: number, now: number): ApiError {
  // At most the window: a place taken by a worker whose clock read a moment later (or that sampled its time before
  // this one and committed first) can end a little after `now` + 60 s.
  const retryAfter = Math.min(MINUTE_MS / 1000, Math.max(1, Math.ceil((freeAt - now) / 1000)));
  return new ApiError(
    'turns-per-minute-limit',
    `${userId} started ${limit} turn(s) in the last minute, the most allowed (turns per minute limit); retry in ${retryAfter} s`,
    { retryAfter },
  );
}
