import * as zlib from 'node:zlib';
import { DamageError } from './damage.js';

/**
 * Preset deflate dictionary (format 1): the JSON boilerplate every serialised message,
 * checkpoint body and write record repeats. Small records (a 200-character message is
 * ~400 bytes of JSON) compress poorly on their own; with this dictionary the repeated
 * keys cost a few bytes. Part of the on-disk format: never edit, add a format 2 instead.
 */
export const DICT_V1 = Buffer.from(
  [
    '"status":"success","artifact":"tool_call_chunks":[],"name":"type":"tool_call"',
    '{"source":"input","step":-1,"parents":{},"delta_writes_versioned":true,"counters_since_delta_snapshot":{"messages":[',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","ToolMessage"],"kwargs":{"tool_call_id":"call_',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"',
    '{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"id":"',
    '","content":"","tool_calls":[{"id":"call_","name":"","args":{}}],"invalid_tool_calls":[],',
    '"additional_kwargs":{},"response_metadata":{},"usage_metadata":{"input_tokens":,"output_tokens":,"total_tokens":',
    '{"p":"~__pregel_pull, __start__","w":[[0,"messages",["a",[1,1]]],[1,"branch:to:agent",["j","null"]]]}',
    '{"p":"~__pregel_pull, agent","w":[[0,"messages",["a",[1,1]]],[1,"branch:to:tools",["j","\\"agent\\""]]]}',
    '{"v":4,"ts":"2026-01-01T00:00:00.000Z","cv":{"__start__":,"messages":,"branch:to:agent":,"branch:to:tools":},',
    '"vs":{"__input__":{},"__start__":{"__start__":},"agent":{"branch:to:agent":},"tools":{"branch:to:tools":}},',
    '"vals":{"__pregel_tasks":["j","[]"],"__start__":["j","{\\"messages\\":[',
    '{"source":"loop","step":,"parents":{},"delta_writes_versioned":true,"counters_since_delta_snapshot":{"messages":[',
  ].join(''),
);

// Formats 0 and 1 (no checksum) are only read; every record written since carries a CRC-32 of its
// uncompressed bytes after the format byte, so a flipped bit anywhere in the record is found on read.
// The checksummed formats' bytes differ from each other and from 0 and 1 in three bits or more: one
// flipped bit cannot turn a record into another valid format (and skip its checksum).
const RAW = 0x00;
const DEFLATE_V1 = 0x01;
const RAW_CRC = 0x5a;
const DEFLATE_V1_CRC = 0xa5;

/**
 * Records shorter than this are stored raw. Deflating one costs a zlib stream's setup (≈ 20 µs alone, several times
 * that inside a turn, with the garbage it leaves) whatever its length; a turn writes about a dozen records, most of
 * them write records of 100–350 bytes. Measured on `bench/space.mjs 1000`: 256 keeps the checkpoint bodies and
 * messages deflated and stores the write records raw, the file grows from 3.6× to 4.0× the raw message bytes (the
 * target is ≤ 5×); at 512 it would be 8.2×.
 */
export const DEFLATE_MIN_BYTES = 256;

/**
 * Encodes `data` as a format byte, a big-endian CRC-32 of `data`, then the payload: dictionary-deflated
 * when it is long enough and that is smaller, else raw. Level 1: on a turn's records of a few hundred bytes it costs
 * less than level 6 and stores about 1% more (`bench/space.mjs 1000`: 4.46× → 4.50× the raw message bytes).
 */
export function pack(data: Uint8Array): Buffer {
  const head = Buffer.allocUnsafe(5);
  head.writeUInt32BE(crc32(data), 1);
  if (data.length >= DEFLATE_MIN_BYTES) {
    const deflated = zlib.deflateRawSync(data, { dictionary: DICT_V1, level: 1, ...windowFor(data.length) });
    if (deflated.length + 8 < data.length) {
      head[0] = DEFLATE_V1_CRC;
      return Buffer.concat([head, deflated]);
    }
  }
  head[0] = RAW_CRC;
  return Buffer.concat([head, data]);
}

/**
 * zlib's window and memory level for a record of `length` bytes: the smallest window that holds the dictionary and the
 * whole record (so every match deflate could find with the full 32 KiB one is still in reach), and a memory level to
 * match. zlib allocates both on every call (≈ 260 KiB at the defaults, counted as external memory that makes V8
 * collect garbage sooner); a turn's records are a few hundred bytes and need 4 KiB. Raw deflate carries no window
 * size, and inflate's 32 KiB window reads any smaller one: the format is unchanged.
 */
export function windowFor(length: number): { windowBits: number; memLevel: number } {
  // deflate keeps MIN_LOOKAHEAD (262) bytes of its window free of matches.
  const needed = DICT_V1.length + length + 262;
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(needed))));
  return { windowBits, memLevel: Math.max(1, windowBits - 7) };
}

/** The bytes `pack` was given; `DamageError('…')` (table filled in by the caller) when they are not. */
export function unpack(packed: Uint8Array, table: DamageError['table'] = 'cp_blobs'): Buffer {
  const buf = Buffer.isBuffer(packed) ? packed : Buffer.from(packed);
  switch (buf[0]) {
    case RAW:
      return buf.subarray(1);
    case DEFLATE_V1:
      return inflate(buf.subarray(1), table);
    case RAW_CRC:
    case DEFLATE_V1_CRC: {
      if (buf.length < 5) throw new DamageError(table, 'the record is truncated');
      const payload = buf.subarray(5);
      const data = buf[0] === RAW_CRC ? payload : inflate(payload, table);
      if (crc32(data) !== buf.readUInt32BE(1)) throw new DamageError(table, 'checksum mismatch');
      return data;
    }
    default:
      throw new DamageError(table, `unknown record format ${buf[0] ?? '(empty)'}`);
  }
}

/**
 * zlib's output buffer for inflating `payload`: about what it inflates to, not zlib's 16 KiB default. A session's
 * messages are records of a few hundred bytes that deflate about 6× with the dictionary, and reading a long session
 * inflates thousands of them, each into a fresh buffer: at 16 KiB apiece, allocating and collecting those buffers cost
 * more than the inflating (a 1,000-turn session's 2,100 messages: 93 ms cold, 41 ms with this). A record that
 * inflates past the guess costs one more buffer and a copy, not a failure.
 */
export function outputChunkFor(payloadLength: number): number {
  return Math.min(zlib.constants.Z_DEFAULT_CHUNK, Math.max(1024, payloadLength * 8));
}

function inflate(payload: Buffer, table: DamageError['table']): Buffer {
  try {
    return zlib.inflateRawSync(payload, { dictionary: DICT_V1, chunkSize: outputChunkFor(payload.length) });
  } catch (error) {
    throw new DamageError(table, `does not inflate (${(error as Error).message})`);
  }
}

/** zlib's CRC-32 (Node ≥ 20.15), else the same polynomial in JavaScript. */
const crc32: (data: Uint8Array) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function' ? (data) => zlib.crc32(data) : crc32Js;

let table: Uint32Array | undefined;
function crc32Js(data: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n += 1) {
      let c = n;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of data) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** @internal For the test that pins the fallback to zlib's values. */
export const crc32Fallback = crc32Js;

export function packText(text: string): Buffer {
  return pack(Buffer.from(text, 'utf8'));
}

export function unpackText(packed: Uint8Array, table: DamageError['table']): string {
  return unpack(packed, table).toString('utf8');
}
