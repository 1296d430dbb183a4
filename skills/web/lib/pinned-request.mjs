// One GET request whose connection goes only to an address that was checked: the host name is resolved by the
// request's own `lookup`, which checks every address it found and hands exactly those to the socket. There is no
// second resolution between the check and the connect, so a name that answers a public address to a check and a
// private one to the connect (DNS rebinding) cannot get through. An IP literal is never resolved (Node connects to
// it directly), so it is checked before the request starts.
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { checkAddress } from './address-policy.mjs';
import { WebFetchError } from './errors.mjs';

/**
 * `dns.lookup`'s shape with `all: true`: the resolver web_fetch uses (tests give one that names test hosts).
 * @typedef {(hostname: string, options: { all: true; family?: number },
 *   callback: (error: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[]) => void) => void} Resolver
 * @typedef {{
 *   allow: import('./address-policy.mjs').AllowList; resolver?: Resolver; signal?: AbortSignal;
 *   maxBytes: number; headers?: Record<string, string>;
 * }} RequestOptions
 * @typedef {{ status: number; headers: import('node:http').IncomingHttpHeaders; body: Buffer; cut: boolean;
 *   address: string }} Response
 */

/** @param {URL} url @param {RequestOptions} options @returns {Promise<Response>} */
export function pinnedGet(url, options) {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host)) checkAddress(host, options.allow, host);
  let connected = host;
  const resolver = options.resolver ?? /** @type {Resolver} */ (/** @type {unknown} */ (dnsLookup));
  /** @type {import('node:net').LookupFunction} */
  const lookup = (hostname, lookupOptions, callback) => {
    const family = typeof lookupOptions.family === 'number' ? lookupOptions.family : 0;
    resolver(hostname, { all: true, ...(family ? { family } : {}) }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      try {
        if (addresses.length === 0) throw new WebFetchError('dns-failed', `${hostname} has no address.`);
        for (const { address } of addresses) checkAddress(address, options.allow, hostname);
      } catch (refusal) {
        return callback(/** @type {NodeJS.ErrnoException} */ (refusal), '', 4);
      }
      connected = /** @type {{ address: string }} */ (addresses[0]).address;
      if (lookupOptions.all) return /** @type {Function} */ (callback)(null, addresses);
      const first = /** @type {{ address: string; family: number }} */ (addresses[0]);
      return callback(null, first.address, first.family);
    });
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(url, {
      method: 'GET',
      lookup,
      // No pooled sockets: every request resolves, checks and connects afresh.
      agent: false,
      headers: options.headers,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    request.on('error', (error) => reject(error instanceof WebFetchError ? error : networkError(url, error)));
    request.on('response', (response) => {
      /** @type {Buffer[]} */
      const chunks = [];
      let size = 0;
      let cut = false;
      const finish = () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).subarray(0, options.maxBytes),
          cut,
          address: connected,
        });
      response.on('data', (/** @type {Buffer} */ chunk) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size > options.maxBytes) {
          // Enough: the rest is never downloaded.
          cut = true;
          response.destroy();
          finish();
        }
      });
      response.on('end', finish);
      response.on('error', (error) => (cut ? undefined : reject(networkError(url, error))));
    });
    request.end();
  });
}

/** @param {URL} url @param {Error} error */
function networkError(url, error) {
  if (error.name === 'AbortError')
    return new WebFetchError('aborted', `Fetching ${url.href} was stopped.`, error);
  const code = /** @type {NodeJS.ErrnoException} */ (error).code;
  return new WebFetchError(
    'network-error',
    `Could not fetch ${url.href}: ${error.message}${code && !error.message.includes(code) ? ` (${code})` : ''}.`,
    error,
  );
}
