import { isIP } from 'node:net';

/**
 * Whether `text` is an IP address or a CIDR network (`10.0.0.0/8`, `fd00::/8`) in its usual form: what `web_fetch`
 * can read from `web_fetch_allow`. A prefix longer than the address (`10.0.0.0/99`) or an octet over 255
 * (`999.1.1.1`) is not, so a setting `web_fetch` would refuse is refused where it is written.
 */
export function isIpNetwork(text: string): boolean {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return false;
  if (slash === -1) return true;
  const bits = text.slice(slash + 1);
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128);
}
