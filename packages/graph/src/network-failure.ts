/**
 * Why an address could not be reached, in words, from a failed `fetch`: undici only says "fetch failed" and keeps
 * the reason (a socket error code) in the error's cause chain. Undefined when no such reason is in the chain.
 */
export function unreachableReason(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  for (let at: unknown = error; at instanceof Error && !seen.has(at); at = at.cause) {
    seen.add(at);
    const code = (at as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && REASONS[code]) return `${REASONS[code]}, ${code}`;
    // `AggregateError` (both an IPv4 and an IPv6 address refused): the first one's reason.
    if (at instanceof AggregateError && at.errors.length > 0) return unreachableReason(at.errors[0]);
  }
  return undefined;
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
  CERT_HAS_EXPIRED: 'its TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its TLS certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its TLS certificate is for another host',
};

/**
 * A server address as an error may show it: no user name, password, query or fragment (a token in `?key=` or
 * `user:pass@` must not reach the model, the run log or the terminal through an error message).
 */
export function shownAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(an address that does not parse)';
  }
}
