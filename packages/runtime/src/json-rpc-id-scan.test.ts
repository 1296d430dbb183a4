import { describe, expect, it } from 'vitest';
import { TopLevelIdScan } from './json-rpc-id-scan.js';

/** The id found in `text` fed in pieces of `size` bytes. */
function scan(text: string, size = 3) {
  const scanner = new TopLevelIdScan();
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) scanner.feed(bytes.subarray(at, at + size));
  return scanner.id;
}

describe('TopLevelIdScan', () => {
  it('finds the top-level id, first or last, number or string', () => {
    expect(scan('{"jsonrpc":"2.0","id":42,"method":"ping"}')).toBe(42);
    expect(scan('{"method":"x","params":{"id":1,"a":[{"id":2}]},"jsonrpc":"2.0","id":"é-\\"7"}')).toBe(
      'é-"7',
    );
    expect(scan('{ "id" : -3 }')).toBe(-3);
    expect(scan('{"params":{"text":"\\"id\\":5,"},"id":6}', 1)).toBe(6);
  });

  it('finds none in a nested id only, an array, or a cut line', () => {
    expect(scan('{"params":{"id":1}}')).toBeUndefined();
    expect(scan('[{"id":1}]')).toBeUndefined();
    expect(scan('{"params":"x')).toBeUndefined();
    expect(scan('{"id":null}')).toBeUndefined();
  });
});
