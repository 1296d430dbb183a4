import { describe, expect, it } from 'vitest';
import { shownAddress, unreachableReason } from './network-failure.js';

describe('network failures in words', () => {
  it('an address is shown without credentials, query or fragment', () => {
    expect(shownAddress('https://user:secret@mcp.example.com:8443/mcp?token=abc#x')).toBe(
      'https://mcp.example.com:8443/mcp',
    );
    expect(shownAddress('not a url')).toBe('(an address that does not parse)');
  });

  it("the reason is found in fetch's cause chain, and in an AggregateError's first error", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(unreachableReason(new TypeError('fetch failed', { cause: refused }))).toBe(
      'connection refused, ECONNREFUSED',
    );
    const both = new AggregateError([Object.assign(new Error('x'), { code: 'ENOTFOUND' })]);
    expect(unreachableReason(new TypeError('fetch failed', { cause: both }))).toBe('no such host, ENOTFOUND');
    expect(unreachableReason(new Error('something else'))).toBeUndefined();
  });
});
