export interface RetryEvent {
  /** 1 for the first retry. */
  attempt: number;
  /** HTTP status that caused the retry. */
  status: number;
  /** How long this retry waits (Retry-After when the server sent one, else exponential backoff). */
  delayMs: number;
}

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff step when the server gives no Retry-After (doubles each attempt, with jitter). */
  baseDelayMs?: number;
  /** Longest wait; a Retry-After beyond it ends the retries at once (the caller gets the typed error). */
  maxDelayMs?: number;
  onRetry?: (event: RetryEvent) => void;
}

export const DEFAULT_BASE_DELAY_MS = 500;
export const DEFAULT_MAX_DELAY_MS = 30_000;

/** 429 (rate limit), 5xx (server error) and Anthropic's 529 (overloaded). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** `retry-after-ms` (OpenAI, Anthropic) wins over `retry-after` (seconds or an HTTP date). */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Delay before retry number `attempt` (1-based), or `undefined` when the server asks for more than allowed. */
export function retryDelay(
  attempt: number,
  hintMs: number | undefined,
  policy: RetryPolicy,
): number | undefined {
  const max = policy.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  if (hintMs !== undefined) return hintMs <= max ? hintMs : undefined;
  const base = (policy.baseDelayMs ?? DEFAULT_BASE_DELAY_MS) * 2 ** (attempt - 1);
  return Math.min(max, Math.round(base * (0.5 + Math.random() / 2)));
}

export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/**
 * A fetch that retries 429/5xx/529 answers itself, honouring Retry-After, so every vendor client behaves the same.
 * After the last attempt the failing response is returned as is: the vendor client turns it into its own error,
 * which `toProviderError` then classifies. Bodies that cannot be replayed (streams) are never retried.
 */
export function createRetryingFetch(
  policy: RetryPolicy,
  baseFetch: typeof fetch = globalThis.fetch,
): typeof fetch {
  return async (input, init) => {
    const replayable = !(input instanceof Request && input.body) && !(init?.body instanceof ReadableStream);
    for (let attempt = 1; ; attempt++) {
      const response = await baseFetch(input, init);
      if (!replayable || !isRetryableStatus(response.status) || attempt > policy.maxRetries) return response;
      const delayMs = retryDelay(attempt, retryAfterMs(response.headers), policy);
      if (delayMs === undefined) return response;
      await response.body?.cancel().catch(() => {});
      policy.onRetry?.({ attempt, status: response.status, delayMs });
      await sleep(delayMs, init?.signal);
    }
  };
}
