import {
  type Moved,
  movedCheckpoint,
  movedValue,
  movedWrites,
  type QuarantinedRecord,
  quarantineParams,
  type RepairReport,
  stepsToMove,
} from '@birdie/store/backend';
import type { PostgresCheckpointer } from './checkpointer/saver.js';
import type { ThreadCheck } from './checkpointer/verify.js';
import { unpackTasks } from './checkpointer/writes.js';
import type { Client, Db, Queryable } from './db.js';
import type { PgLeases } from './leases.js';

interface Deps {
  db: Db;
  saver: PostgresCheckpointer;
  leases: PgLeases;
}

/**
 * Forks a session from its last good step (the SQLite store's repair): every checkpoint whose records are damaged,
 * and every checkpoint after it, moves with its writes to `cp_quarantine`; damaged values move too. The newest
 * remaining checkpoint is the head, so the next turn continues from there.
 */
export async function repairSession(deps: Deps, sessionId: string): Promise<RepairReport> {
  const { db, saver, leases } = deps;
  const check = await saver.checkThread(sessionId);
  if (check.bad.size === 0 && check.badBlobs.size === 0) return withHead(db, { sessionId, quarantined: [] });
  const touched: number[] = [];
  const quarantined = await db.tx(async (client) => {
    // Another process on the session would write on top of what is being moved.
    await leases.fence(client, sessionId);
    const out: QuarantinedRecord[] = [];
    const { rows: threads } = await client.query<{ id: number; ns: string }>(
      'SELECT id, ns FROM cp_threads WHERE thread_id = $1',
      [sessionId],
    );
    for (const thread of threads) {
      await quarantineThread(client, sessionId, thread, check, out);
      touched.push(thread.id);
    }
    return out;
  });
  // Other processes' caches name rows by id: moved values are found missing there and saved again.
  saver.forgetCaches(touched);
  return withHead(db, { sessionId, quarantined });
}

async function quarantineThread(
  client: Client,
  sessionId: string,
  thread: { id: number; ns: string },
  check: ThreadCheck,
  out: QuarantinedRecord[],
): Promise<void> {
  const now = Date.now();
  const keep = (values: unknown[]) =>
    client.query(
      `INSERT INTO cp_quarantine (thread_id, ns, source, checkpoint_id, seq, task_id, blob_id, meta, data, reason, at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      values,
    );
  const { rows: infos } = await client.query<{
    seq: number;
    checkpoint_id: string;
    parent_seq: number | null;
  }>(
    'SELECT seq, cp_key_text(checkpoint_id) AS checkpoint_id, parent_seq FROM cp_checkpoints WHERE thread = $1',
    [thread.id],
  );
  const move = async ({ row, record }: Moved) => {
    await keep(quarantineParams(sessionId, thread.ns, row, now));
    out.push(record);
  };
  for (const { step, reason } of stepsToMove(infos, check.bad)) {
    const { rows: stored } = await client.query<{ body: Buffer | null; writes: Buffer | null }>(
      'SELECT body, writes FROM cp_checkpoints WHERE seq = $1',
      [step.seq],
    );
    // Since migration 6 a step's writes are a column of its row: they move with it, one entry per task.
    for (const w of quarantinedWrites(step.seq, stored[0]?.writes ?? null)) {
      await move(movedWrites(thread.ns, step, w.task_id, w.writes, reason));
    }
    await move(movedCheckpoint(thread.ns, thread.id, step, stored[0]?.body ?? null, reason));
    await client.query('DELETE FROM cp_checkpoints WHERE seq = $1', [step.seq]);
  }
  const { rows: blobs } = await client.query<{ id: number; key: string | null; data: Buffer }>(
    'SELECT id, key::text AS key, data FROM cp_blobs WHERE thread = $1 AND id = ANY($2::bigint[])',
    [thread.id, [...check.badBlobs.keys()]],
  );
  for (const blob of blobs) {
    const reason = check.badBlobs.get(blob.id)!;
    await move(movedValue(thread.ns, thread.id, blob.id, { key: blob.key }, blob.data, reason));
    await client.query('DELETE FROM cp_blobs WHERE id = $1', [blob.id]);
  }
  if (blobs.length === 0) return;
  // Other processes cache "this thread stores the value with this hash at id N" by thread row: a new row id makes
  // those entries miss instead of pointing new checkpoints at a value that was moved.
  await client.query('DELETE FROM cp_threads WHERE id = $1', [thread.id]);
  const { rows } = await client.query<{ id: number }>(
    'INSERT INTO cp_threads (thread_id, ns) VALUES ($1, $2) RETURNING id',
    [sessionId, thread.ns],
  );
  await client.query('UPDATE cp_checkpoints SET thread = $1 WHERE thread = $2', [rows[0]!.id, thread.id]);
  await client.query('UPDATE cp_blobs SET thread = $1 WHERE thread = $2', [rows[0]!.id, thread.id]);
}

/** A step's pending writes as quarantine entries: one per task, or the whole column when its framing is broken. */
function quarantinedWrites(seq: number, column: Buffer | null): { task_id: string | null; writes: Buffer }[] {
  if (column === null) return [];
  try {
    return unpackTasks(column, seq).map((t) => ({ task_id: t.taskId, writes: t.record }));
  } catch {
    return [{ task_id: null, writes: column }];
  }
}

async function withHead(q: Queryable, report: RepairReport): Promise<RepairReport> {
  const { rows } = await q.query<{ checkpoint_id: string }>(
    `SELECT cp_key_text(c.checkpoint_id) AS checkpoint_id FROM cp_checkpoints c JOIN cp_threads t ON t.id = c.thread
     WHERE t.thread_id = $1 AND t.ns = '' AND c.body IS NOT NULL ORDER BY c.checkpoint_id DESC LIMIT 1`,
    [report.sessionId],
  );
  return rows[0] ? { ...report, head: rows[0].checkpoint_id } : report;
}
