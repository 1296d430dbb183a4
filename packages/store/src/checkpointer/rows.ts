import type Database from 'better-sqlite3';
import type { Db } from '../db.js';

import type { TupleRow, WriteRow } from './tuple.js';

export type { TupleRow as CheckpointRow, WriteRow } from './tuple.js';

type CheckpointRow = TupleRow;

export interface ChainRow {
  seq: number;
  chans: string | null;
  stored: number;
}

const SELECT_CHECKPOINT = `SELECT c.seq, c.checkpoint_id, c.parent_seq, c.body, p.checkpoint_id AS parent, t.thread_id, t.ns
  FROM cp_checkpoints c JOIN cp_threads t ON t.id = c.thread LEFT JOIN cp_checkpoints p ON p.seq = c.parent_seq`;

/** Every statement the checkpointer runs, prepared once per connection. */

// Spelled out: declaration emit cannot name better-sqlite3's inferred statement type.
export interface Rows {
  thread: Database.Statement<[string, string], { id: number }>;
  insertThread: Database.Statement<[string, string], unknown>;
  threadsOf: Database.Statement<[string], { id: number }>;
  seq: Database.Statement<[number, string], { seq: number }>;
  latestSeq: Database.Statement<[number], { seq: number }>;
  /** The id of a thread's newest stored checkpoint, by thread id and namespace. */
  headId: Database.Statement<[string, string], { checkpoint_id: string }>;
  placeholder: Database.Statement<[number, string], unknown>;
  /** A put: a new row, or the placeholder (or earlier put) of the same id filled in; its row id either way. */
  upsert: Database.Statement<[number, string, number | null, string, Buffer], { seq: number }>;
  byId: Database.Statement<[number, string], CheckpointRow>;
  latest: Database.Statement<[number], CheckpointRow>;
  bodyOf: Database.Statement<[number], { body: Buffer }>;
  writesOf: Database.Statement<[number], WriteRow>;
  writesIn: Database.Statement<[string], WriteRow>;
  writeRecord: Database.Statement<[number, string], { writes: Buffer }>;
  putWrite: Database.Statement<[number, string, Buffer], unknown>;
  /** A task's first write record at a checkpoint; no change when it has one already (`putWrite` after a merge). */
  newWrite: Database.Statement<[number, string, Buffer], unknown>;
  chain: Database.Statement<[number], ChainRow>;
  deleteWrites: Database.Statement<[string], unknown>;
  deleteCheckpoints: Database.Statement<[string], unknown>;
  deleteBlobs: Database.Statement<[string], unknown>;
  deleteThreads: Database.Statement<[string], unknown>;
  deleteQuarantine: Database.Statement<[string], unknown>;
  idOfSeq: Database.Statement<[number], { checkpoint_id: string }>;
}

export function prepareRows(db: Db): Rows {
  const st = <P extends unknown[], R = unknown>(sql: string) => db.prepare<P, R>(sql);
  return {
    thread: st<[string, string], { id: number }>('SELECT id FROM cp_threads WHERE thread_id = ? AND ns = ?'),
    insertThread: st<[string, string], unknown>('INSERT INTO cp_threads (thread_id, ns) VALUES (?, ?)'),
    threadsOf: st<[string], { id: number }>('SELECT id FROM cp_threads WHERE thread_id = ?'),
    seq: st<[number, string], { seq: number }>(
      'SELECT seq FROM cp_checkpoints WHERE thread = ? AND checkpoint_id = ?',
    ),
    latestSeq: st<[number], { seq: number }>(
      'SELECT seq FROM cp_checkpoints WHERE thread = ? AND body IS NOT NULL ORDER BY checkpoint_id DESC LIMIT 1',
    ),
    headId: st<[string, string], { checkpoint_id: string }>(
      `SELECT c.checkpoint_id FROM cp_threads t JOIN cp_checkpoints c ON c.thread = t.id
       WHERE t.thread_id = ? AND t.ns = ? AND c.body IS NOT NULL ORDER BY c.checkpoint_id DESC LIMIT 1`,
    ),
    placeholder: st<[number, string], unknown>(
      'INSERT INTO cp_checkpoints (thread, checkpoint_id) VALUES (?, ?)',
    ),
    upsert: st<[number, string, number | null, string, Buffer], { seq: number }>(
      `INSERT INTO cp_checkpoints (thread, checkpoint_id, parent_seq, chans, body) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (thread, checkpoint_id) DO UPDATE
         SET parent_seq = excluded.parent_seq, chans = excluded.chans, body = excluded.body
       RETURNING seq`,
    ),
    byId: st<[number, string], CheckpointRow>(
      `${SELECT_CHECKPOINT} WHERE c.thread = ? AND c.checkpoint_id = ? AND c.body IS NOT NULL`,
    ),
    latest: st<[number], CheckpointRow>(
      `${SELECT_CHECKPOINT} WHERE c.thread = ? AND c.body IS NOT NULL ORDER BY c.checkpoint_id DESC LIMIT 1`,
    ),
    bodyOf: st<[number], { body: Buffer }>('SELECT body FROM cp_checkpoints WHERE seq = ?'),
    writesOf: st<[number], WriteRow>(
      'SELECT checkpoint, task_id, writes FROM cp_writes WHERE checkpoint = ?',
    ),
    writesIn: st<[string], WriteRow>(
      'SELECT checkpoint, task_id, writes FROM cp_writes WHERE checkpoint IN (SELECT value FROM json_each(?))',
    ),
    writeRecord: st<[number, string], { writes: Buffer }>(
      'SELECT writes FROM cp_writes WHERE checkpoint = ? AND task_id = ?',
    ),
    putWrite: st<[number, string, Buffer], unknown>(
      'INSERT OR REPLACE INTO cp_writes (checkpoint, task_id, writes) VALUES (?, ?, ?)',
    ),
    newWrite: st<[number, string, Buffer], unknown>(
      'INSERT INTO cp_writes (checkpoint, task_id, writes) VALUES (?, ?, ?) ON CONFLICT (checkpoint, task_id) DO NOTHING',
    ),
    // Ancestors of a checkpoint, nearest first; the caller stops iterating when it has enough.
    chain: st<[number], ChainRow>(`WITH RECURSIVE chain (seq, parent, chans, stored) AS (
        SELECT c.seq, c.parent_seq, c.chans, c.body IS NOT NULL FROM cp_checkpoints c
          WHERE c.seq = (SELECT parent_seq FROM cp_checkpoints WHERE seq = ?)
        UNION ALL
        SELECT c.seq, c.parent_seq, c.chans, c.body IS NOT NULL FROM chain JOIN cp_checkpoints c ON c.seq = chain.parent
      ) SELECT seq, chans, stored FROM chain`),
    deleteWrites: st<[string], unknown>(
      `DELETE FROM cp_writes WHERE checkpoint IN (SELECT c.seq FROM cp_checkpoints c
         JOIN cp_threads t ON t.id = c.thread WHERE t.thread_id = ?)`,
    ),
    deleteCheckpoints: st<[string], unknown>(
      'DELETE FROM cp_checkpoints WHERE thread IN (SELECT id FROM cp_threads WHERE thread_id = ?)',
    ),
    deleteBlobs: st<[string], unknown>(
      'DELETE FROM cp_blobs WHERE thread IN (SELECT id FROM cp_threads WHERE thread_id = ?)',
    ),
    deleteThreads: st<[string], unknown>('DELETE FROM cp_threads WHERE thread_id = ?'),
    deleteQuarantine: st<[string], unknown>('DELETE FROM cp_quarantine WHERE thread_id = ?'),
    idOfSeq: st<[number], { checkpoint_id: string }>(
      'SELECT checkpoint_id FROM cp_checkpoints WHERE seq = ?',
    ),
  };
}

export { SELECT_CHECKPOINT };
