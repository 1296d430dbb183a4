import type { RetryEvent } from '@birdie/providers';

/** A vendor retrying a rate-limited or failed call, in the words the screen shows. */
export interface RetryNotice extends RetryEvent {
  vendor: string;
  /** Retries the config allows (max_retries): `attempt` of `of`. */
  of: number;
}

let listener: ((notice: RetryNotice) => void) | undefined;

/** Who hears about retries now (the REPL's spinner, `birdie run`'s stderr); undefined: nobody. */
export function listenForRetries(next: ((notice: RetryNotice) => void) | undefined): void {
  listener = next;
}

/** The `onRetry` given to a chat model: forwards to whoever listens at the time of the retry. */
/** The line for `notice` as it stands now: the wait counted from when the notice came, down to the retry. */
export function retryCountdown(notice: RetryNotice, now: () => number = Date.now): () => string {
  const due = now() + notice.delayMs;
  return () => retryLine(notice, Math.max(0, due - now()));
}

export function retryCallback(config: { vendor: string; max_retries: number }): (event: RetryEvent) => void {
  return (event) => listener?.({ ...event, vendor: config.vendor, of: config.max_retries });
}

/**
 * `openai is rate limiting (HTTP 429): retrying in 4 s, attempt 2 of 3`. `leftMs` is what remains of the wait
 * (default: all of it): a screen that redraws the line passes it each time, so the seconds count down.
 */
export function retryLine(notice: RetryNotice, leftMs = notice.delayMs): string {
  const why = notice.status === 429 ? 'is rate limiting' : 'failed';
  // Whole seconds still to wait, rounded up: "1 s" until the retry is due, never "0 s".
  const seconds = Math.max(1, Math.ceil(leftMs / 1000));
  return `${notice.vendor} ${why} (HTTP ${notice.status}): retrying in ${seconds} s, attempt ${notice.attempt} of ${notice.of}`;
}
