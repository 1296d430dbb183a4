// The web-search skill's tool, called by birdie's `node:` entrypoint as `(args, context)`. It asks DuckDuckGo's HTML
// endpoint (no API key) and returns numbered results. BIRDIE_WEB_SEARCH_BASE_URL (from `context.env`, else the process
// environment) replaces the endpoint's origin; tests point it at a local server.
import { parseResults } from './lib/parse.mjs';

const DEFAULT_BASE = 'https://html.duckduckgo.com';
const TIME_RANGES = { day: 'd', week: 'w', month: 'm', year: 'y' };

export class WebSearchError extends Error {
  /** @param {string} code @param {string} message @param {unknown} [cause] */
  constructor(code, message, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'WebSearchError';
    this.code = code;
  }
}

/**
 * @param {{ query: string; max_results?: number; region?: string; time_range?: string }} args
 * @param {{ signal?: AbortSignal; env?: Record<string, string> }} [context]
 */
export async function search(args, context) {
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (!query) throw new WebSearchError('bad-query', 'Give a search query (a few keywords work best).');
  const limit = args.max_results ?? 5;
  if (!Number.isInteger(limit) || limit < 1 || limit > 20) {
    throw new WebSearchError(
      'bad-limit',
      `max_results must be a whole number from 1 to 20, not ${JSON.stringify(limit)}.`,
    );
  }
  const form = new URLSearchParams({ q: query, b: '' });
  if (args.region) form.set('kl', String(args.region));
  if (args.time_range !== undefined) {
    const code = TIME_RANGES[/** @type {keyof typeof TIME_RANGES} */ (args.time_range)];
    if (!code)
      throw new WebSearchError('bad-time-range', 'time_range must be one of day, week, month, year.');
    form.set('df', code);
  }
  const { html, status } = await fetchPage(endpoint(context), form, context?.signal);
  const page = parseResults(html);
  // 202 with no results is how the endpoint answers a request it has rate-limited.
  if (page.blocked || (status === 202 && page.results.length === 0)) {
    throw new WebSearchError(
      'blocked',
      'DuckDuckGo answered with a bot check instead of results. Wait a minute and search again, or use fewer searches.',
    );
  }
  if (page.results.length === 0) {
    return `No results for "${query}". Try fewer or different keywords.`;
  }
  const shown = page.results.slice(0, limit);
  const lines = [`Results for "${query}" (${shown.length} of ${page.results.length}):`];
  shown.forEach((result, index) => {
    lines.push('', `${index + 1}. ${result.title}`, `   ${result.url}`);
    if (result.snippet) lines.push(`   ${result.snippet}`);
  });
  return lines.join('\n');
}

/** @param {{ env?: Record<string, string> } | undefined} context */
function endpoint(context) {
  const base =
    context?.env?.BIRDIE_WEB_SEARCH_BASE_URL ?? process.env.BIRDIE_WEB_SEARCH_BASE_URL ?? DEFAULT_BASE;
  const url = new URL('/html/', base);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebSearchError('bad-config', `BIRDIE_WEB_SEARCH_BASE_URL must be an http(s) URL, not ${base}.`);
  }
  return url;
}

/** @param {URL} url @param {URLSearchParams} form @param {AbortSignal | undefined} signal */
async function fetchPage(url, form, signal) {
  let response;
  try {
    response = await fetch(url, {
      method: 'POST',
      body: form,
      signal,
      headers: {
        // The HTML endpoint serves browsers; a plain library user agent is often refused.
        'user-agent':
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
        accept: 'text/html',
        'accept-language': 'en-US,en;q=0.8',
      },
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new WebSearchError('network', `Could not reach ${url.origin}: ${reasonOf(error)}.`, error);
  }
  const html = await response.text();
  if (!response.ok && response.status !== 202) {
    throw new WebSearchError(
      'service-error',
      `DuckDuckGo answered ${response.status}; try again in a moment.`,
    );
  }
  return { html, status: response.status };
}

/**
 * The most useful words about a failed fetch: the socket's code (ECONNREFUSED, ENOTFOUND…) when there is one.
 * @param {unknown} error
 */
function reasonOf(error) {
  const cause = /** @type {{ cause?: { code?: string } }} */ (error).cause;
  return cause?.code ?? (error instanceof Error ? error.message : String(error));
}
