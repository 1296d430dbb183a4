import type { Ref } from './codec.js';
import { unpackText } from './compress.js';
import { decoding } from './damage.js';

/** A checkpoint row's body: the checkpoint without its id, values as refs; `ts` or its gap `dt` (see timestamp.ts). */
export interface Body {
  v: number;
  ts?: string;
  dt?: number;
  cv: Record<string, string | number>;
  vs: Record<string, Record<string, string | number>>;
  vals: Record<string, Ref>;
}

/** A cp_writes row: all writes of one task against one checkpoint. */
export interface WritesRecord {
  p: string;
  w: [idx: number, channel: string, value: Ref][];
}

/** A packed `body` column: checkpoint JSON, a newline, then the serializer's metadata JSON. */
export function parseBody(packed: Buffer, seq?: number): { body: Body; metadata: string } {
  return decoding(
    'cp_checkpoints',
    () => {
      const text = unpackText(packed, 'cp_checkpoints');
      const cut = text.indexOf('\n');
      if (cut < 0) throw new Error('no metadata separator');
      const body = JSON.parse(text.slice(0, cut)) as Body;
      if (typeof body !== 'object' || body === null || typeof body.vals !== 'object' || body.vals === null) {
        throw new Error('not a checkpoint body');
      }
      if (typeof body.ts !== 'string' && typeof body.dt !== 'number') throw new Error('no timestamp');
      return { body, metadata: text.slice(cut + 1) };
    },
    seq === undefined ? {} : { seq },
  );
}

export function parseRecord(packed: Buffer, seq?: number, taskId?: string): WritesRecord {
  const where = { ...(seq === undefined ? {} : { seq }), ...(taskId === undefined ? {} : { taskId }) };
  return decoding(
    'cp_writes',
    () => {
      const record = JSON.parse(unpackText(packed, 'cp_writes')) as WritesRecord;
      if (typeof record !== 'object' || record === null || !Array.isArray(record.w)) {
        throw new Error('not a writes record');
      }
      return record;
    },
    where,
  );
}
