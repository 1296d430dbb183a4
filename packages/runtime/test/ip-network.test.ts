import { describe, expect, it } from 'vitest';
import { isIpNetwork } from '../src/ip-network.js';

// Review finding: `web_fetch_allow` was checked with node:net where it is written, and read with ipaddr.js by
// web_fetch (skills/web/lib/address-policy.mjs): the two disagreed on some spellings, so a value was accepted here and
// meant something else there (`::ffff:10.0.0.0/8` let web_fetch reach every IPv4 address; `010.0.0.1` is octal,
// 8.0.0.1, to ipaddr.js). One set of rules now decides both; this table holds the two to it.

type AllowList = [{ kind(): string; toString(): string }, number][];
const policy = (await import(
  new URL('../../../skills/web/lib/address-policy.mjs', import.meta.url).href
)) as { parseAllowList(text: string): AllowList };

/** What web_fetch makes of one entry: `address/bits`, or undefined when it refuses it. */
function webFetchReads(entry: string): string | undefined {
  try {
    const [network] = policy.parseAllowList(entry);
    return network ? `${network[0].toString()}/${network[1]}` : undefined;
  } catch {
    return undefined;
  }
}

const REFUSED = [
  // IPv4 short forms and other bases: not the usual dotted form
  '127.1',
  '10.1',
  '0x7f.0.0.1',
  '2130706433',
  '010.0.0.1',
  '127.0.0.01',
  // a zone id names an interface, not a network
  'fe80::1%eth0',
  'fe80::1%eth0/64',
  '::ffff:127.0.0.1%1',
  // an IPv4-mapped network shorter than the mapped space
  '::ffff:10.0.0.0/8',
  '::ffff:0:0/95',
  // an IPv4-compatible address (ipaddr.js reads it as mapped), and leading zeros inside a mapped one
  '::127.0.0.1',
  '::ffff:010.0.0.1',
  // prefixes: longer than the address, leading zeros, signs
  '10.0.0.0/99',
  'fd00::/200',
  '10.0.0.0/08',
  '10.0.0.0/+8',
  '10.0.0.0/',
  '999.1.1.1',
  '1.2.3',
  'localhost',
];

const ACCEPTED: Array<[string, string]> = [
  ['10.0.0.0/8', '10.0.0.0/8'],
  ['127.0.0.1', '127.0.0.1/32'],
  ['0.0.0.0/0', '0.0.0.0/0'],
  ['fd00::/8', 'fd00::/8'],
  ['FD00::/8', 'fd00::/8'],
  ['::1', '::1/128'],
  ['0:0:0:0:0:0:0:1', '::1/128'],
  // IPv4-mapped: the IPv4 network it maps
  ['::ffff:127.0.0.1', '127.0.0.1/32'],
  ['::FFFF:7f00:1', '127.0.0.1/32'],
  ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
];

describe('web_fetch_allow spellings: where the setting is written and where web_fetch reads it agree', () => {
  it.each(REFUSED)('%s is refused by both', (entry) => {
    expect(isIpNetwork(entry)).toBe(false);
    expect(webFetchReads(entry)).toBeUndefined();
  });

  it.each(ACCEPTED)('%s is accepted by both, as %s', (entry, network) => {
    expect(isIpNetwork(entry)).toBe(true);
    expect(webFetchReads(entry)).toBe(network);
  });
});
