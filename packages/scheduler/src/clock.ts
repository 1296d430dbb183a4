/** Time as the scheduler sees it: injected so tests can move it (a daylight-saving change, a day of schedules). */
export interface Clock {
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

// setTimeout fires at once past 2^31-1 ms: a far due time is reached in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS)),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
