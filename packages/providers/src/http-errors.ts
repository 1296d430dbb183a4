import { ProviderError, redact } from './errors.js';
import type { Vendor } from './vendors.js';

export interface ErrorContext {
  vendor: Vendor;
  apiKey?: string;
  /** Variable holding the key, named in auth errors. */
  envVar?: string;
  baseUrl?: string;
  maxRetries: number;
  /** Request timeout in milliseconds, named in timeout errors. */
  timeout?: number;
  /** What to do about a 401/403 when no credential is to blame (a simulated failure): replaces the key advice. */
  authFix?: string;
}

/** HTTP status carried by a vendor client's error (OpenAI/Anthropic `status`, Ollama `status_code`, …). */
export function errorStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as Record<string, any>;
  for (const value of [e.status, e.status_code, e.statusCode, e.response?.status]) {
    if (typeof value === 'number' && value >= 100 && value < 600) return value;
  }
  return undefined;
}

function errorName(error: unknown): unknown {
  return (error as { name?: unknown } | null)?.name;
}

function isAbort(error: unknown): boolean {
  const name = errorName(error);
  return name === 'AbortError' || name === 'APIUserAbortError';
}

function isTimeout(error: unknown): boolean {
  const name = errorName(error);
  // @langchain/anthropic re-wraps client errors keeping the class but not the name.
  if ((error as object | null)?.constructor?.name === 'APIConnectionTimeoutError') return true;
  const cause = (error as { cause?: unknown } | null)?.cause;
  return (
    name === 'TimeoutError' ||
    name === 'APIConnectionTimeoutError' ||
    (cause !== undefined && isTimeout(cause))
  );
}

/** Turns whatever a vendor client threw into a ProviderError with a stable code; the key never appears in it. */
export function toProviderError(error: unknown, ctx: ErrorContext): unknown {
  if (error instanceof ProviderError || isAbort(error)) return error;
  if (isTimeout(error)) {
    const limit = ctx.timeout === undefined ? '' : ` within ${ctx.timeout} ms`;
    const where = ctx.baseUrl ? ` at ${ctx.baseUrl}` : '';
    return new ProviderError(
      'timeout',
      `${ctx.vendor} did not answer${limit}${where}; raise timeout (LLM_TIMEOUT) or check the server`,
      { cause: error, vendor: ctx.vendor },
    );
  }
  const status = errorStatus(error);
  const raw = error instanceof Error ? error.message : String(error);
  const detail = redact(raw, [ctx.apiKey]).split('\n')[0]!.slice(0, 300);
  const details = { cause: error, vendor: ctx.vendor, status };
  if (status === 401 || status === 403) {
    // A keyless config (an OpenAI-compatible local server) sent no key: say so rather than blame a variable.
    const fix = ctx.authFix
      ? ctx.authFix
      : !ctx.envVar
        ? 'check the server access settings'
        : ctx.apiKey === undefined
          ? `no API key was sent; set ${ctx.envVar} (or "api_key" in the config)`
          : `check ${ctx.envVar} (or "api_key" in the config)`;
    return new ProviderError(
      'auth-failed',
      `${ctx.vendor} rejected the credentials (HTTP ${status}): ${fix}. Server said: ${detail}`,
      { ...details, envVar: ctx.envVar },
    );
  }
  const tries = ctx.maxRetries === 1 ? '1 retry' : `${ctx.maxRetries} retries`;
  if (status === 429) {
    return new ProviderError(
      'rate-limited',
      `${ctx.vendor} is rate limiting requests (HTTP 429) after ${tries}; wait and try again, or raise max_retries. Server said: ${detail}`,
      details,
    );
  }
  if (status !== undefined && status >= 500) {
    return new ProviderError(
      'server-error',
      `${ctx.vendor} failed or is overloaded (HTTP ${status}) after ${tries}; try again later. Server said: ${detail}`,
      details,
    );
  }
  if (status !== undefined) {
    return new ProviderError(
      'request-failed',
      `${ctx.vendor} refused the request (HTTP ${status}): ${detail}`,
      details,
    );
  }
  const where = ctx.baseUrl ? ` at ${ctx.baseUrl}` : '';
  const network = networkCause(error);
  if (network) {
    return new ProviderError(
      'request-failed',
      `${ctx.vendor} could not be reached${where}: ${network}; check that the server is running and its address (base_url)`,
      details,
    );
  }
  return new ProviderError('request-failed', `${ctx.vendor} request failed${where}: ${detail}`, details);
}

const NETWORK_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening there (connection refused)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now (DNS)',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
};

/** fetch says only "fetch failed": the system error code that explains it is somewhere down its cause chain. */
function networkCause(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && typeof e === 'object' && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code in NETWORK_CAUSES) return NETWORK_CAUSES[code];
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      const inner = errors.map(networkCause).find(Boolean);
      if (inner) return inner;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
