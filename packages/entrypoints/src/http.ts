import { argumentText, withDefaults } from './args.js';
import { EntrypointError } from './errors.js';
import { formatBody, readCapped } from './http-body.js';
import { isRetryableStatus, MAX_RETRY_DELAY_MS, retryDelayMs, sleep } from './http-retry.js';
import { analyseUrlTemplate, buildUrl, redactLiteralQuery, type UrlTemplate } from './http-url.js';
import { limitsOf, seconds } from './limits.js';
import { redactUrl, redactUrlsIn, redactUserinfoIn } from './redact.js';
import type { TargetAnalysis } from './target.js';
import type { Entrypoint, JsonSchemaObjectLike, RunOptions, RunResult, SchemeContext } from './types.js';

type Method = 'GET' | 'POST';
const MAX_REDIRECTS = 5;

/** `http:get <url>` and `http:post <url>`. */
export function analyseHttp(target: string, context: SchemeContext): TargetAnalysis {
  const where = redactUrlsIn(context.entrypoint);
  const match = /^(get|post)\s+(\S+)$/i.exec(target);
  if (!match) {
    const message = `${where}: expected 'http:get <url>' or 'http:post <url>'`;
    return { problems: [{ code: 'bad-entrypoint', message }], placeholders: [] };
  }
  const method = match[1]!.toUpperCase() as Method;
  const start = target.length - match[2]!.length;
  const { problems, template } = analyseUrlTemplate(match[2]!, where);
  const shifted = problems.map((p) => (p.offset === undefined ? p : { ...p, offset: p.offset + start }));
  if (!template) return { problems: shifted, placeholders: [] };
  const placeholders = template.parts.flatMap((p) =>
    p.kind === 'placeholder' ? [{ name: p.name, offset: p.offset + start }] : [],
  );
  return {
    problems: shifted,
    placeholders,
    build: () => ({
      scheme: 'http',
      raw: false,
      placeholders: [...template.names],
      run: (args, options = {}) => request(method, template, args, context.schema, options),
    }),
  };
}

export function httpScheme(target: string, context: SchemeContext): Entrypoint {
  const analysis = analyseHttp(target, context);
  const problem = analysis.problems[0];
  if (problem) {
    throw new EntrypointError(
      problem.code,
      problem.message,
      problem.offset === undefined ? {} : { offset: problem.offset },
    );
  }
  return analysis.build!();
}

/** What a response may carry back that the template hid: credentials in links, the template's own query keys. */
function redactResult(text: string, template: UrlTemplate): string {
  return redactUserinfoIn(redactLiteralQuery(text, template));
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
  const label = `${method} ${shortened(redactUrl(url.href))}`;

  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await follow(method, url, body, options.headers, signal, label);
    } catch (cause) {
      if (signal.aborted) throw stopped(options.signal, limits.timeoutMs, label, cause);
      if (cause instanceof EntrypointError) throw cause;
      const reason = redactUrlsIn(networkReason(cause));
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
        const text = redactResult(start.text.trim(), template);
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
      return { output: redactResult(text.text, template), truncated: text.truncated };
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
  label: string,
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
        `${label} redirected to another origin (${redactUrl(next.origin)}); not followed`,
        { status: response.status },
      );
    }
    if (hop >= MAX_REDIRECTS) {
      throw new EntrypointError('http-status', `${label}: more than ${MAX_REDIRECTS} redirects`, {
        status: response.status,
      });
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

/** Longest URL a message shows whole: a longer one (a long path value) keeps its start and end, so the status after it is never cut off with it. */
const MAX_SHOWN_URL = 300;

function shortened(url: string): string {
  if (url.length <= MAX_SHOWN_URL) return url;
  const head = url.slice(0, 200);
  const tail = url.slice(-60);
  return `${head}…[${url.length - head.length - tail.length} more characters]…${tail}`;
}
