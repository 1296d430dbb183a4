// web_fetch's whole path, the same in birdie and in tests (which only give another resolver): check the URL, GET it
// through a pinned connection, follow redirects one hop at a time (each hop's URL and resolved address checked
// again), then turn the body into text for the model.
import { parseAllowList } from './address-policy.mjs';
import { WebFetchError } from './errors.mjs';
import { htmlToMarkdown } from './markdown.mjs';
import { pinnedGet } from './pinned-request.mjs';

/** The most bytes downloaded from one page; the rest is never read. */
export const MAX_DOWNLOAD_BYTES = 5 * 1024 * 1024;
/** The most characters returned: under the runtime's 32,000-character cut, so the note is always seen. */
export const MAX_CHARS = 30_000;
export const DEFAULT_CHARS = 20_000;
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'birdie-web-fetch/1.0 (+https://github.com/birdie)';

/**
 * @typedef {{ url: string; max_chars?: number }} FetchArgs
 * @typedef {{ allow?: string; resolver?: import('./pinned-request.mjs').Resolver; signal?: AbortSignal }} FetchOptions
 */

/** @param {FetchArgs} args @param {FetchOptions} options @returns {Promise<string>} */
export async function fetchPage(args, options) {
  const allow = parseAllowList(options.allow);
  const limit = Math.min(
    MAX_CHARS,
    Math.max(1, Math.trunc(Number(args.max_chars ?? DEFAULT_CHARS)) || DEFAULT_CHARS),
  );
  let url = checkUrl(args.url);
  const hops = [];
  for (;;) {
    const response = await pinnedGet(url, {
      allow,
      maxBytes: MAX_DOWNLOAD_BYTES,
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/html,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5',
      },
      ...(options.resolver ? { resolver: options.resolver } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const location = response.headers.location;
    if (REDIRECTS.has(response.status) && location) {
      if (hops.length >= MAX_REDIRECTS) {
        throw new WebFetchError(
          'too-many-redirects',
          `${args.url} redirected more than ${MAX_REDIRECTS} times.`,
        );
      }
      hops.push(url.href);
      url = checkUrl(new URL(location, url).href, `the redirect from ${url.href}`);
      continue;
    }
    if (response.status < 200 || response.status > 299) {
      const start = response.body.subarray(0, 300).toString('utf8').replace(/\s+/g, ' ').trim();
      throw new WebFetchError(
        'http-status',
        `${url.href} answered HTTP ${response.status}${start ? `: ${start}` : ''}`,
      );
    }
    return render(url, response, hops, limit);
  }
}

/**
 * @param {unknown} value @param {string} [what] where the URL came from, for the message
 * @returns {URL}
 */
export function checkUrl(value, what = 'the URL') {
  let url;
  try {
    url = new URL(String(value));
  } catch {
    throw new WebFetchError(
      'bad-url',
      `"${String(value)}" is not a URL; give a full http:// or https:// address.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebFetchError(
      'bad-url',
      `Refused ${what} ${url.href}: web_fetch fetches http and https URLs only.`,
    );
  }
  if (url.username || url.password) {
    throw new WebFetchError('bad-url', `Refused ${what}: URLs with a user name or password are not fetched.`);
  }
  return url;
}

/**
 * @param {URL} url @param {import('./pinned-request.mjs').Response} response @param {string[]} hops @param {number} limit
 */
function render(url, response, hops, limit) {
  const type = String(response.headers['content-type'] ?? '').toLowerCase();
  const mime = type.split(';')[0]?.trim() || 'application/octet-stream';
  const text = decode(response.body, type);
  let title = '';
  let body;
  if (mime === 'text/html' || mime === 'application/xhtml+xml') {
    ({ title, markdown: body } = htmlToMarkdown(text, url));
  } else if (mime.startsWith('text/') || /[/+](json|xml)$/.test(mime)) {
    body = text;
  } else {
    throw new WebFetchError(
      'unsupported-content',
      `${url.href} is ${mime} (${response.headers['content-length'] ?? response.body.length} bytes), not a text ` +
        'page; web_fetch returns web pages and text only.',
    );
  }
  const header = [
    title ? `# ${title}` : '',
    `Source: ${url.href}${hops.length ? ` (redirected from ${hops[0]})` : ''}`,
  ].filter(Boolean);
  const notes = [];
  let shown = body;
  if (body.length > limit) {
    shown = body.slice(0, limit);
    notes.push(`[truncated: the page has ${body.length} characters; this shows the first ${limit}.]`);
  }
  if (response.cut) notes.push(`[the download stopped at ${MAX_DOWNLOAD_BYTES} bytes; the page is longer]`);
  return [...header, '', shown, ...(notes.length ? ['', ...notes] : [])].join('\n');
}

/** The body as text in its declared charset (UTF-8 when none is given or it is unknown). @param {Buffer} body @param {string} type */
function decode(body, type) {
  const charset = /charset=["']?([\w-]+)/.exec(type)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
