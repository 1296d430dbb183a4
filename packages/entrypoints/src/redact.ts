const URL_PARTS = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*@)?([^?#]*)(\?[^#]*)?(#.*)?$/is;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
export const REDACTED = 'REDACTED';

/**
 * A URL fit for messages and logs: userinfo (`user:password@`), every query value and the fragment are replaced by
 * `REDACTED`; scheme, host, port, path and query names stay. Works on templates too (`{id}` is kept as written), and
 * returns text that is not a `scheme://` URL unchanged.
 *
 *     redactUrl('https://u:p@api.example.com/v1/items?key=abc&q=x#t') // 'https://REDACTED@api.example.com/v1/items?key=REDACTED&q=REDACTED#REDACTED'
 */
export function redactUrl(url: string): string {
  const match = URL_PARTS.exec(url);
  if (!match) return url;
  const [, scheme, userinfo, rest, query, fragment] = match;
  return (
    scheme! +
    (userinfo ? `${REDACTED}@` : '') +
    rest +
    (query ? redactQuery(query) : '') +
    (fragment === undefined ? '' : fragment.length > 1 ? `#${REDACTED}` : fragment)
  );
}

function redactQuery(query: string): string {
  const pairs = query
    .slice(1)
    .split('&')
    .map((pair) => {
      if (pair === '') return pair;
      const eq = pair.indexOf('=');
      return eq === -1 ? REDACTED : `${pair.slice(0, eq)}=${REDACTED}`;
    });
  return `?${pairs.join('&')}`;
}

/** Every `scheme://…` URL in `text` through `redactUrl`. */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => redactUrl(url));
}

/** Only the userinfo of every URL in `text` (a response body: its links and query strings are data). */
export function redactUserinfoIn(text: string): string {
  return text.replace(URL_IN_TEXT, (url) =>
    url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, `$1${REDACTED}@`),
  );
}
