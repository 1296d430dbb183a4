import ipaddr from 'ipaddr.js';

/** One network of `web_fetch_allow`: an IPv4 or IPv6 address and its prefix length. */
export interface IpNetwork {
  address: ipaddr.IPv4 | ipaddr.IPv6;
  bits: number;
}

/** The usual dotted IPv4 form: four decimal numbers without leading zeros (`127.1`, `010.0.0.1` are not). */
const isDottedIpv4 = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text);

/**
 * An entry of `web_fetch_allow`: an IP address or a CIDR network in its usual form, or undefined. `web_fetch` reads
 * the setting (`BIRDIE_WEB_FETCH_ALLOW`) with the same library, ipaddr.js, by the same rules
 * (skills/web/lib/address-policy.mjs; test/ip-network.test.ts holds the two to one table of spellings), so what is
 * accepted where the setting is written is what web_fetch allows. ipaddr.js alone reads more than is meant:
 * `127.1`, `0x7f.0.0.1`, `2130706433` and octal `010.0.0.1` (8.0.0.1) as IPv4, a zone id (`fe80::1%eth0`), and an
 * IPv4-mapped network shorter than the mapped space (`::ffff:10.0.0.0/8`, which would cover every IPv4 address):
 * all refused. An IPv4-mapped address or network is the IPv4 one it maps (`::ffff:10.0.0.0/104` is `10.0.0.0/8`).
 */
export function parseIpNetwork(text: string): IpNetwork | undefined {
  const match = /^([^/]+)(?:\/(0|[1-9]\d{0,2}))?$/.exec(text);
  if (!match) return undefined;
  const [, written = '', prefix] = match;
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  if (isDottedIpv4(written)) address = ipaddr.IPv4.parse(written);
  else if (isPlainIpv6(written)) address = ipaddr.IPv6.parse(written);
  else return undefined;
  const max = address.kind() === 'ipv4' ? 32 : 128;
  const bits = prefix === undefined ? max : Number(prefix);
  if (bits > max) return undefined;
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress()) {
    if (bits < 96) return undefined;
    return { address: address.toIPv4Address(), bits: bits - 96 };
  }
  return { address, bits };
}

/** An IPv6 address without a zone id, whose dotted tail (if any) is a mapped IPv4 address in the usual form. */
function isPlainIpv6(text: string): boolean {
  if (text.includes('%') || !ipaddr.IPv6.isValid(text)) return false;
  if (!text.includes('.')) return true;
  const mapped = /^::ffff:([\d.]+)$/i.exec(text);
  return mapped !== null && isDottedIpv4(mapped[1] as string);
}

/** Whether `text` is an entry `web_fetch` accepts in `web_fetch_allow` (see `parseIpNetwork`). */
export function isIpNetwork(text: string): boolean {
  return parseIpNetwork(text) !== undefined;
}
