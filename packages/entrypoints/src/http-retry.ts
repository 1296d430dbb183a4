/** Longest wait a Retry-After may ask for; beyond it the failure is reported at once instead. */
export const MAX_RETRY_DELAY_MS = 10_000;

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Delay before attempt `attempt + 1`: Retry-After (seconds or HTTP date) or a short exponential backoff. */
export function retryDelayMs(retryAfter: string | null, attempt: number, now = Date.now()): number {
  if (retryAfter !== null && retryAfter.trim() !== '') {
    const value = retryAfter.trim();
    if (/^\d+$/.test(value)) return Number(value) * 1000;
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return Math.min(200 * 2 ** attempt, 2_000);
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
