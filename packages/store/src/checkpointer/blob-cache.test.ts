import { describe, expect, it } from 'vitest';
import { BlobCache } from './blob-cache.js';
import type { Serde } from './codec.js';

const serde = {} as Serde;

/** The cache's protected side, as the back ends use it: keep what a load decoded, then ask what is cached. */
class Probe extends BlobCache {
  keepDecoded(id: number, value: unknown, json: number): void {
    this.keep(new Map(), id, value, `key-${id}`, json);
  }
  isCached(id: number): boolean {
    return this.cached([id]).missing.length === 0;
  }
}

describe('BlobCache: decoded values a long-running process keeps', () => {
  it('keeps as many small values as it may (20,000) and drops the least recently read first', () => {
    const cache = new Probe(serde);
    for (let id = 1; id <= 20_001; id++) cache.keepDecoded(id, { id }, 400);
    expect(cache.isCached(1)).toBe(false);
    expect(cache.isCached(2)).toBe(true);
    expect(cache.isCached(20_001)).toBe(true);
  });

  it('bounds what the values weigh, not only how many there are: large values push out the old ones', () => {
    const cache = new Probe(serde);
    const large = 1024 * 1024; // a value of 1 MiB of JSON (a long tool result)
    for (let id = 1; id <= 100; id++) cache.keepDecoded(id, { id }, large);
    const kept = Array.from({ length: 100 }, (_, i) => i + 1).filter((id) => cache.isCached(id));
    // At most 32 MiB of them, the newest.
    expect(kept.length).toBe(32);
    expect(kept[0]).toBe(69);
    expect(kept.at(-1)).toBe(100);
  });

  it('does not keep one value larger than the whole budget, and keeps what it holds', () => {
    const cache = new Probe(serde);
    cache.keepDecoded(1, { id: 1 }, 1000);
    cache.keepDecoded(2, { id: 2 }, 64 * 1024 * 1024);
    expect(cache.isCached(2)).toBe(false);
    expect(cache.isCached(1)).toBe(true);
  });

  it('reading a value again makes it the newest', () => {
    const cache = new Probe(serde);
    const large = 1024 * 1024;
    for (let id = 1; id <= 32; id++) cache.keepDecoded(id, { id }, large);
    expect(cache.isCached(1)).toBe(true); // a load that finds it cached
    cache.keepDecoded(33, { id: 33 }, large);
    expect(cache.isCached(1)).toBe(true);
    expect(cache.isCached(2)).toBe(false);
  });
});
