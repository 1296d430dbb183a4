import type { QuarantinedRecord, RepairReport } from '@birdie/store/backend';
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

const FOLLOWS = 'follows a damaged step';

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
  // Recomputed from the rows as they are now: a step added since the check is still a descendant.
  const children = new Map<number, number[]>();
  for (const info of infos) {
    if (info.parent_seq !== null)
      children.set(info.parent_seq, [...(children.get(info.parent_seq) ?? []), info.seq]);
  }
  const doomed = new Set<number>();
  const queue = infos.filter((i) => check.bad.has(i.seq)).map((i) => i.seq);
  while (queue.length > 0) {
    const seq = queue.pop()!;
    if (doomed.has(seq)) continue;
    doomed.add(seq);
    queue.push(...(children.get(seq) ?? []));
  }
  for (const info of infos.filter((i) => doomed.has(i.seq)).sort((a, b) => a.seq - b.seq)) {
    const reason = check.bad.get(info.seq) ?? FOLLOWS;
    const { rows: stored } = await client.query<{ body: Buffer | null; writes: Buffer | null }>(
      'SELECT body, writes FROM cp_checkpoints WHERE seq = $1',
      [info.seq],
    );
    for (const w of quarantinedWrites(info.seq, stored[0]?.writes ?? null)) {
      const meta = JSON.stringify({ checkpoint: info.seq, task_id: w.task_id });
      await keep([
        sessionId,
        thread.ns,
        'cp_writes',
        info.checkpoint_id,
        info.seq,
        w.task_id,
        null,
        meta,
        w.writes,
        reason,
        now,
      ]);
      out.push({
        table: 'cp_writes',
        ns: thread.ns,
        checkpointId: info.checkpoint_id,
        seq: info.seq,
        ...(w.task_id === null ? {} : { taskId: w.task_id }),
        reason,
      });
    }
    const meta = JSON.stringify({
      seq: info.seq,
      thread: thread.id,
      checkpoint_id: info.checkpoint_id,
      parent_seq: info.parent_seq,
    });
    await keep([
      sessionId,
      thread.ns,
      'cp_checkpoints',
      info.checkpoint_id,
      info.seq,
      null,
      null,
      meta,
      stored[0]?.body ?? null,
      reason,
      now,
    ]);
    out.push({
      table: 'cp_checkpoints',
      ns: thread.ns,
      checkpointId: info.checkpoint_id,
      seq: info.seq,
      reason,
    });
    await client.query('DELETE FROM cp_checkpoints WHERE seq = $1', [info.seq]);
  }
  const { rows: blobs } = await client.query<{ id: number; key: string | null; data: Buffer }>(
    'SELECT id, key::text AS key, data FROM cp_blobs WHERE thread = $1 AND id = ANY($2::bigint[])',
    [thread.id, [...check.badBlobs.keys()]],
  );
  for (const blob of blobs) {
    const reason = check.badBlobs.get(blob.id)!;
    const meta = JSON.stringify({ id: blob.id, thread: thread.id, key: blob.key });
    await keep([sessionId, thread.ns, 'cp_blobs', null, null, null, blob.id, meta, blob.data, reason, now]);
    out.push({ table: 'cp_blobs', ns: thread.ns, blobId: blob.id, reason });
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
