import { DamageError } from '@birdie/store/backend';

/**
 * A checkpoint row's `writes` column (migration 6): for each task, in key order, the length of its key, the key
 * (`cp_key` bytes), the length of its write record, the record (packed, with its own CRC-32). A length below 128 is
 * one byte; a longer one is four bytes big-endian with the top bit set. Migration 6 builds the same bytes in SQL.
 */
export interface TaskWrites {
  taskId: string;
  /** The task's write record, packed. */
  record: Buffer;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `cp_key` (migration 5) in JavaScript: a lowercase UUID as its 16 bytes, other text as 0xFF + UTF-8 (+ 0x00 at 15 bytes). */
export function keyBytes(id: string): Buffer {
  if (UUID.test(id)) return Buffer.from(id.replaceAll('-', ''), 'hex');
  const text = Buffer.from(id, 'utf8');
  return Buffer.concat([Buffer.of(0xff), text, text.length === 15 ? Buffer.of(0) : Buffer.alloc(0)]);
}

/** `cp_key_text`: the id `keyBytes` was given. */
export function keyText(key: Buffer): string {
  if (key.length === 16) {
    const hex = key.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  const end = key.length === 17 && key[16] === 0 ? 16 : key.length;
  return key.subarray(1, end).toString('utf8');
}

function length(n: number): Buffer {
  if (n < 128) return Buffer.of(n);
  const out = Buffer.alloc(4);
  out.writeUInt32BE((n | 0x80000000) >>> 0);
  return out;
}

/** The column's bytes for `tasks` (each task once). */
export function packTasks(tasks: readonly TaskWrites[]): Buffer {
  const keyed = tasks.map((t) => ({ key: keyBytes(t.taskId), record: t.record }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  return Buffer.concat(
    keyed.flatMap(({ key, record }) => [length(key.length), key, length(record.length), record]),
  );
}

/** The tasks of a `writes` column; `DamageError('cp_writes')` at checkpoint `seq` when its framing is broken. */
export function unpackTasks(column: Buffer, seq: number): TaskWrites[] {
  const out: TaskWrites[] = [];
  let at = 0;
  const read = (): Buffer => {
    if (at >= column.length) throw truncated(seq);
    let n = column[at]!;
    if (n < 128) {
      at += 1;
    } else {
      if (at + 4 > column.length) throw truncated(seq);
      n = column.readUInt32BE(at) & 0x7fffffff;
      at += 4;
    }
    if (at + n > column.length) throw truncated(seq);
    const bytes = column.subarray(at, at + n);
    at += n;
    return bytes;
  };
  while (at < column.length) {
    const key = read();
    if (key.length === 0) throw new DamageError('cp_writes', 'a task has an empty key', { seq });
    out.push({ taskId: keyText(key), record: read() });
  }
  return out;
}

function truncated(seq: number): DamageError {
  return new DamageError('cp_writes', 'the pending writes are truncated', { seq });
}
