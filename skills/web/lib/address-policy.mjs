// Which addresses web_fetch may connect to: public unicast only (ipaddr.js's `unicast` range, IPv4 and IPv6), unless
// the user allowed a network. Loopback, private, link-local (cloud metadata at 169.254.169.254), unique-local,
// carrier-grade NAT, multicast, unspecified and the IPv6 forms that embed an IPv4 address (mapped, NAT64, 6to4,
// Teredo) are all refused: each can reach the user's own machine or network.
import ipaddr from 'ipaddr.js';
import { WebFetchError } from './errors.mjs';

/** The environment variable that lists allowed non-public networks: addresses or CIDRs, comma- or space-separated. */
export const ALLOW_VARIABLE = 'BIRDIE_WEB_FETCH_ALLOW';

/** @typedef {[ipaddr.IPv4 | ipaddr.IPv6, number][]} AllowList */

/**
 * The allowed networks from the variable's text. A bad entry is an error (a typo must not silently allow nothing,
 * nor everything).
 * @param {string | undefined} text
 * @returns {AllowList}
 */
export function parseAllowList(text) {
  /** @type {AllowList} */
  const list = [];
  for (const entry of (text ?? '').split(/[\s,]+/).filter(Boolean)) {
    try {
      if (entry.includes('/')) {
        const [address, bits] = ipaddr.parseCIDR(entry);
        list.push([
          normal(address),
          address.kind() === 'ipv6' && normal(address).kind() === 'ipv4' ? bits - 96 : bits,
        ]);
      } else {
        const address = normal(ipaddr.parse(entry));
        list.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      }
    } catch (cause) {
      throw new WebFetchError(
        'bad-allow-list',
        `${ALLOW_VARIABLE} has "${entry}", which is not an IP address or CIDR (such as 10.0.0.0/8 or fd00::/8).`,
        cause,
      );
    }
  }
  return list;
}

/**
 * Throws unless `address` (as a resolver or URL gave it) is public or allowed.
 * @param {string} address @param {AllowList} allow @param {string} host the name it was found for, for the message
 */
export function checkAddress(address, allow, host) {
  let parsed;
  try {
    parsed = normal(ipaddr.parse(address));
  } catch (cause) {
    throw new WebFetchError(
      'blocked-address',
      `${host} resolved to "${address}", which is not an IP address.`,
      cause,
    );
  }
  const range = parsed.range();
  if (range === 'unicast') return;
  if (allow.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits)))
    return;
  const named = host === address ? address : `${host} (${address})`;
  const kind = rangeName(range);
  throw new WebFetchError(
    'blocked-address',
    `Refused ${named}: it is ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} address, which web_fetch does not connect to. Fetch public ` +
      `web pages only; the user can allow a network with ${ALLOW_VARIABLE}.`,
  );
}

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is the IPv4 address it maps. @param {ipaddr.IPv4 | ipaddr.IPv6} address */
function normal(address) {
  return address.kind() === 'ipv6' && /** @type {ipaddr.IPv6} */ (address).isIPv4MappedAddress()
    ? /** @type {ipaddr.IPv6} */ (address).toIPv4Address()
    : address;
}

/** @param {string} range */
function rangeName(range) {
  const names = /** @type {Record<string, string>} */ ({
    loopback: 'loopback',
    private: 'private-network',
    linkLocal: 'link-local',
    uniqueLocal: 'unique-local (private IPv6)',
    carrierGradeNat: 'carrier-grade NAT',
    unspecified: 'unspecified',
    multicast: 'multicast',
    broadcast: 'broadcast',
  });
  return names[range] ?? `non-public (${range})`;
}
