import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  crc32Fallback,
  DEFLATE_MIN_BYTES,
  DICT_V1,
  outputChunkFor,
  pack,
  unpack,
  windowFor,
} from './compress.js';
import { DamageError } from './damage.js';

describe('packed records', () => {
  it('round-trip raw and deflated, each with a CRC-32 after the format byte', () => {
    for (const data of [
      Buffer.from('short'),
      Buffer.from(`{"lc":1,"type":"constructor",${'"x":1,'.repeat(50)}}`),
    ]) {
      const packed = pack(data);
      expect([0x5a, 0xa5]).toContain(packed[0]);
      expect(packed.readUInt32BE(1)).toBe(crc32(data));
      expect(unpack(packed)).toEqual(data);
    }
  });

  it('a flipped bit never yields different bytes: it is a DamageError (or deflate padding, which changes nothing)', () => {
    const original = Buffer.from('a message of some length, '.repeat(20));
    for (const packed of [pack(original), pack(Buffer.from('raw'))]) {
      let detected = 0;
      for (let i = 0; i < packed.length; i += 1) {
        for (let bit = 1; bit < 256; bit <<= 1) {
          const damaged = Buffer.from(packed);
          damaged[i]! ^= bit;
          try {
            expect(unpack(damaged, 'cp_writes')).toEqual(unpack(packed));
          } catch (error) {
            expect(error, `byte ${i} bit ${bit}`).toBeInstanceOf(DamageError);
            detected += 1;
          }
        }
      }
      expect(detected).toBeGreaterThan(packed.length * 8 - 8);
    }
  });

  it('stores a record shorter than DEFLATE_MIN_BYTES raw, a longer one deflated when that is smaller', () => {
    const record = (length: number) =>
      Buffer.from(`{"lc":1,"type":"constructor","id":[${'1,'.repeat(length)}`.slice(0, length));
    expect(pack(record(DEFLATE_MIN_BYTES - 1))[0]).toBe(0x5a);
    expect(pack(record(DEFLATE_MIN_BYTES))[0]).toBe(0xa5);
    for (const length of [DEFLATE_MIN_BYTES - 1, DEFLATE_MIN_BYTES])
      expect(unpack(pack(record(length)))).toEqual(record(length));
  });

  it('deflates in a window just big enough for the record, and reads records deflated in the full one', () => {
    expect(windowFor(300)).toEqual({ windowBits: 11, memLevel: 4 });
    expect(windowFor(1_000_000)).toEqual({ windowBits: 15, memLevel: 8 });
    const words = (n: number) =>
      Array.from({ length: n }, (_, i) => `{"id":"m${i % 97}","content":"word ${i * 7919}"}`).join(',');
    for (const size of [300, 5_000, 100_000]) {
      const data = Buffer.from(words(size)).subarray(0, size);
      const packed = pack(data);
      expect(packed[0]).toBe(0xa5);
      expect(unpack(packed)).toEqual(data);
    }
    // A record as the writers before this one deflated it: level 6, zlib's default 32 KiB window.
    const data = Buffer.from(words(500));
    const old = Buffer.concat([
      Buffer.of(0xa5, 0, 0, 0, 0),
      deflateRawSync(data, { dictionary: DICT_V1, level: 6 }),
    ]);
    old.writeUInt32BE(crc32(data), 1);
    expect(unpack(old)).toEqual(data);
  });

  it('inflates into a buffer sized for the record, and reads records that inflate far past that size', () => {
    expect(outputChunkFor(70)).toBe(1024);
    expect(outputChunkFor(300)).toBe(2400);
    expect(outputChunkFor(1_000_000)).toBe(16 * 1024);
    // Runs of one byte deflate about 1000×: each of these inflates into many output buffers, not the first one.
    for (const size of [DEFLATE_MIN_BYTES, 20_000, 3_000_000]) {
      const data = Buffer.alloc(size, 'a');
      const packed = pack(data);
      expect(packed[0]).toBe(0xa5);
      expect(packed.length * 8).toBeLessThan(size);
      expect(unpack(packed)).toEqual(data);
    }
  });

  it('reads the formats written before checksums', () => {
    expect(unpack(Buffer.concat([Buffer.of(0), Buffer.from('old')])).toString()).toBe('old');
  });

  it('the JavaScript CRC-32 (for Node without zlib.crc32) matches zlib', () => {
    for (const text of ['', 'a', 'The quick brown fox', 'é'.repeat(1000)]) {
      expect(crc32Fallback(Buffer.from(text))).toBe(crc32(Buffer.from(text)));
    }
  });
});
