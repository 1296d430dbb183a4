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
    const network = parseNetwork(entry);
    if (!network)
      throw new WebFetchError(
        'bad-allow-list',
        `${ALLOW_VARIABLE} has "${entry}", which is not an IP address or CIDR (such as 10.0.0.0/8 or fd00::/8).`,
      );
    list.push(network);
  }
  return list;
}

/**
 * One entry in its usual form, by the rules the runtime checks the `web_fetch_allow` setting with
 * (packages/runtime/src/ip-network.ts, held to the same table of spellings by its test/ip-network.test.ts).
 * ipaddr.js alone reads more than is meant: `127.1`, `0x7f.0.0.1`, `2130706433` and octal `010.0.0.1` (8.0.0.1), a
 * zone id (`fe80::1%eth0`), an IPv4-mapped network shorter than the mapped space (`::ffff:10.0.0.0/8`, which would
 * cover every IPv4 address). A mapped address or network is the IPv4 one it maps.
 * @param {string} entry @returns {[ipaddr.IPv4 | ipaddr.IPv6, number] | undefined}
 */
function parseNetwork(entry) {
  const match = /^([^/]+)(?:\/(0|[1-9]\d{0,2}))?$/.exec(entry);
  if (!match) return undefined;
  const [, written = '', prefix] = match;
  /** @type {ipaddr.IPv4 | ipaddr.IPv6} */
  let address;
  if (ipaddr.IPv4.isValidFourPartDecimal(written)) address = ipaddr.IPv4.parse(written);
  else if (isPlainIpv6(written)) address = ipaddr.IPv6.parse(written);
  else return undefined;
  const max = address.kind() === 'ipv4' ? 32 : 128;
  const bits = prefix === undefined ? max : Number(prefix);
  if (bits > max) return undefined;
  if (address.kind() === 'ipv6' && /** @type {ipaddr.IPv6} */ (address).isIPv4MappedAddress()) {
    if (bits < 96) return undefined;
    return [/** @type {ipaddr.IPv6} */ (address).toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

/** An IPv6 address without a zone id, whose dotted tail (if any) is a mapped IPv4 address in the usual form. @param {string} text */
function isPlainIpv6(text) {
  if (text.includes('%') || !ipaddr.IPv6.isValid(text)) return false;
  if (!text.includes('.')) return true;
  const mapped = /^::ffff:([\d.]+)$/i.exec(text);
  return mapped !== null && ipaddr.IPv4.isValidFourPartDecimal(mapped[1] ?? '');
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
