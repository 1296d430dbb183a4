import type { Serde, TupleRow, TupleSource, WriteRow } from '@birdie/store/backend';
import type { Queryable } from '../db.js';
import type { PgBlobStore } from './blobs.js';
import { unpackTasks } from './writes.js';

export type { WriteRow } from '@birdie/store/backend';

export interface CheckpointRow extends TupleRow {
  /** The step's pending writes, per task (`writes.ts`). */
  writes: Buffer | null;
}

/** Checkpoint and task ids are stored as `cp_key(id)` bytes (migration 5) and read back with `cp_key_text`. */
export const SELECT_CHECKPOINT = `SELECT c.seq, cp_key_text(c.checkpoint_id) AS checkpoint_id, c.parent_seq, c.body,
    c.writes, cp_key_text(p.checkpoint_id) AS parent, t.thread_id, t.ns
  FROM cp_checkpoints c JOIN cp_threads t ON t.id = c.thread LEFT JOIN cp_checkpoints p ON p.seq = c.parent_seq`;

/** What reading needs: the serializer, the blob store and a connection; decoding tuples reads through it. */
export interface ReadContext extends TupleSource<CheckpointRow> {
  serde: Serde;
  blobs: PgBlobStore;
  q: Queryable;
}

export function readContext(serde: Serde, blobs: PgBlobStore, q: Queryable): ReadContext {
  return {
    serde,
    blobs,
    q,
    loadValues: (ids) => blobs.load(q, ids),
    // Since migration 6 a step's write records are a column of its own row: no query.
    ownWrites: (row) => taskRows(row.seq, row.writes),
    writesOf: (seq) => writesOf(q, [seq]),
  };
}

/** The write records of checkpoint `seq`'s tasks, from its row's `writes` column. */
export function taskRows(seq: number, column: Buffer | null): WriteRow[] {
  if (column === null) return [];
  return unpackTasks(column, seq).map((t) => ({ checkpoint: seq, task_id: t.taskId, writes: t.record }));
}

export async function writesOf(q: Queryable, seqs: number[]): Promise<WriteRow[]> {
  const { rows } = await q.query<{ seq: number; writes: Buffer }>(
    'SELECT seq, writes FROM cp_checkpoints WHERE seq = ANY($1::bigint[]) AND writes IS NOT NULL',
    [seqs],
  );
  return rows.flatMap((row) => taskRows(row.seq, row.writes));
}
