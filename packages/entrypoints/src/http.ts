import { withDefaults, argumentText } from './args.js';
import { EntrypointError } from './errors.js';
import { formatBody, readCapped } from './http-body.js';
import { isRetryableStatus, MAX_RETRY_DELAY_MS, retryDelayMs, sleep } from './http-retry.js';
import { buildUrl, parseUrlTemplate, type UrlTemplate } from './http-url.js';
import { limitsOf, seconds } from './limits.js';
import type { Entrypoint, JsonSchemaObjectLike, RunOptions, RunResult, SchemeContext } from './types.js';

type Method = 'GET' | 'POST';
const MAX_REDIRECTS = 5;

/** `http:get <url>` and `http:post <url>`. */
export function httpScheme(target: string, context: SchemeContext): Entrypoint {
  const match = /^(get|post)\s+(\S+)$/i.exec(target.trim());
  if (!match) {
    throw new EntrypointError(
      'bad-entrypoint',
      `${context.entrypoint}: expected 'http:get <url>' or 'http:post <url>'`,
    );
  }
  const method = match[1]!.toUpperCase() as Method;
  const template = parseUrlTemplate(match[2]!, context.entrypoint);
  return {
    scheme: 'http',
    raw: false,
    placeholders: [...template.names],
    run: (args, options = {}) => request(method, template, args, context.schema, options),
  };
}

async function request(
  method: Method,
  template: UrlTemplate,
  args: Record<string, unknown>,
  schema: JsonSchemaObjectLike | undefined,
  options: RunOptions,
): Promise<RunResult> {
  const limits = limitsOf(options);
  const url = buildUrl(template, args, schema);
  const rest = Object.entries(withDefaults(args, schema)).filter(
    ([name, value]) => !template.names.includes(name) && value !== undefined && value !== null,
  );
  let body: string | undefined;
  if (method === 'GET') for (const [name, value] of rest) url.searchParams.append(name, argumentText(value));
  else body = JSON.stringify(Object.fromEntries(rest));

  if (options.signal?.aborted) throw aborted(options.signal);
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const retries = Math.max(0, Math.floor(options.retries ?? (method === 'GET' ? 1 : 0)));
  const started = Date.now();
  const label = `${method} ${url.origin}${url.pathname}`;

  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await follow(method, url, body, options.headers, signal);
    } catch (cause) {
      if (signal.aborted) throw stopped(options.signal, limits.timeoutMs, label, cause);
      if (cause instanceof EntrypointError) throw cause;
      const reason = networkReason(cause);
      if (attempt < retries && (await wait(null, attempt, started, limits.timeoutMs, signal))) continue;
      if (signal.aborted) throw stopped(options.signal, limits.timeoutMs, label, cause);
      throw new EntrypointError('network', `${label} failed: ${reason}`, { cause });
    }
    try {
      if (!response.ok) {
        if (
          isRetryableStatus(response.status) &&
          attempt < retries &&
          (await wait(response.headers.get('retry-after'), attempt, started, limits.timeoutMs, signal))
        ) {
          await response.body?.cancel().catch(() => {});
          continue;
        }
        const start = await readCapped(response, 1_000);
        const text = start.text.trim();
        throw new EntrypointError(
          'http-status',
          `${label} answered ${response.status} ${response.statusText}${text ? `\n${text}` : ''}`,
          { status: response.status, output: text },
        );
      }
      const text = formatBody(
        await readCapped(response, limits.maxOutputBytes),
        response.headers.get('content-type'),
        limits.maxOutputBytes,
      );
      return { output: text.text, truncated: text.truncated };
    } catch (cause) {
      if (signal.aborted) throw stopped(options.signal, limits.timeoutMs, label, cause);
      throw cause;
    }
  }
}

/** Sends the request, following redirects only while they stay on the template's origin. */
async function follow(
  method: Method,
  url: URL,
  body: string | undefined,
  headers: Record<string, string> | undefined,
  signal: AbortSignal,
): Promise<Response> {
  let current = url;
  let currentMethod: string = method;
  let currentBody = body;
  for (let hop = 0; ; hop++) {
    const response = await fetch(current, {
      method: currentMethod,
      redirect: 'manual',
      signal,
      headers: {
        accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
        'user-agent': 'birdie-entrypoints',
        ...(currentBody === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(currentBody === undefined ? {} : { body: currentBody }),
    });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || response.status === 304 || !location)
      return response;
    await response.body?.cancel().catch(() => {});
    const next = new URL(location, current);
    if (next.origin !== url.origin) {
      throw new EntrypointError(
        'cross-origin-redirect',
        `${method} ${url.origin}${url.pathname} redirected to another origin (${next.origin}); not followed`,
        { status: response.status },
      );
    }
    if (hop >= MAX_REDIRECTS) {
      throw new EntrypointError(
        'http-status',
        `${method} ${url.origin}${url.pathname}: more than ${MAX_REDIRECTS} redirects`,
        {
          status: response.status,
        },
      );
    }
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && currentMethod === 'POST')
    ) {
      currentMethod = 'GET';
      currentBody = undefined;
    }
    current = next;
  }
}

/** Waits before a retry; false when the wait is too long or would overrun the call's time limit. */
async function wait(
  retryAfter: string | null,
  attempt: number,
  started: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  const delay = retryDelayMs(retryAfter, attempt);
  if (delay > MAX_RETRY_DELAY_MS || Date.now() - started + delay >= timeoutMs) return false;
  await sleep(delay, signal).catch(() => {});
  return !signal.aborted;
}

function networkReason(cause: unknown): string {
  const inner = (cause as { cause?: { code?: string; message?: string } })?.cause;
  return inner?.code ?? inner?.message ?? (cause instanceof Error ? cause.message : String(cause));
}

function stopped(
  user: AbortSignal | undefined,
  timeoutMs: number,
  label: string,
  cause: unknown,
): EntrypointError {
  if (user?.aborted) return aborted(user, label);
  return new EntrypointError('timeout', `${label} timed out after ${seconds(timeoutMs)}`, { cause });
}

function aborted(signal: AbortSignal, label = 'request'): EntrypointError {
  return new EntrypointError('aborted', `${label} was cancelled`, { cause: signal.reason });
}
