import type { BirdieCheckpointer } from './checkpointer/saver.js';
import type { ThreadCheck } from './checkpointer/verify.js';
import { type Db, immediate } from './db.js';
import type { QuarantinedRecord, RepairReport } from './interface.js';
import type { Leases } from './leases.js';

interface Deps {
  db: Db;
  saver: BirdieCheckpointer;
  leases: Leases;
}

const FOLLOWS = 'follows a damaged step';

/**
 * Forks a session from its last good step: every checkpoint whose records are damaged, and every
 * checkpoint after it, moves with its writes to `cp_quarantine`; damaged values move too. The
 * newest remaining checkpoint is the head, so the next turn continues from there.
 */
export async function repairSession(deps: Deps, sessionId: string): Promise<RepairReport> {
  const { db, saver, leases } = deps;
  const check = await saver.checkThread(sessionId);
  if (check.bad.size === 0 && check.badBlobs.size === 0) {
    return withHead(db, { sessionId, quarantined: [] });
  }
  const oldThreads: number[] = [];
  const quarantined = immediate(db, () => {
    // Another process on the session would write on top of what is being moved.
    leases.fence(sessionId);
    const out: QuarantinedRecord[] = [];
    const threads = db
      .prepare<[string], { id: number; ns: string }>('SELECT id, ns FROM cp_threads WHERE thread_id = ?')
      .all(sessionId);
    for (const thread of threads) {
      const moved = quarantineThread(db, sessionId, thread, check, out);
      if (moved) oldThreads.push(thread.id);
    }
    return out;
  });
  saver.forgetCaches(oldThreads);
  return withHead(db, { sessionId, quarantined });
}

/** Moves one namespace's damaged records aside; true when the thread row was renumbered. */
function quarantineThread(
  db: Db,
  sessionId: string,
  thread: { id: number; ns: string },
  check: ThreadCheck,
  out: QuarantinedRecord[],
): boolean {
  const now = Date.now();
  const keep = db.prepare(
    `INSERT INTO cp_quarantine (thread_id, ns, source, checkpoint_id, seq, task_id, blob_id, meta, data, reason, at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const infos = db
    .prepare<
      [number],
      { seq: number; checkpoint_id: string; parent_seq: number | null; chans: string | null }
    >('SELECT seq, checkpoint_id, parent_seq, chans FROM cp_checkpoints WHERE thread = ?')
    .all(thread.id);
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
  const writesOf = db.prepare<[number], { task_id: string; writes: Buffer }>(
    'SELECT task_id, writes FROM cp_writes WHERE checkpoint = ? ORDER BY task_id',
  );
  const bodyOf = db.prepare<[number], { body: Buffer | null }>(
    'SELECT body FROM cp_checkpoints WHERE seq = ?',
  );
  const dropWrites = db.prepare('DELETE FROM cp_writes WHERE checkpoint = ?');
  const dropCheckpoint = db.prepare('DELETE FROM cp_checkpoints WHERE seq = ?');
  for (const info of infos.filter((i) => doomed.has(i.seq)).sort((a, b) => a.seq - b.seq)) {
    const reason = check.bad.get(info.seq) ?? FOLLOWS;
    for (const w of writesOf.all(info.seq)) {
      const meta = JSON.stringify({ checkpoint: info.seq, task_id: w.task_id });
      keep.run(
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
      );
      out.push({
        table: 'cp_writes',
        ns: thread.ns,
        checkpointId: info.checkpoint_id,
        seq: info.seq,
        taskId: w.task_id,
        reason,
      });
    }
    const meta = JSON.stringify({
      seq: info.seq,
      thread: thread.id,
      checkpoint_id: info.checkpoint_id,
      parent_seq: info.parent_seq,
      chans: info.chans,
    });
    const body = bodyOf.get(info.seq)?.body ?? null;
    keep.run(
      sessionId,
      thread.ns,
      'cp_checkpoints',
      info.checkpoint_id,
      info.seq,
      null,
      null,
      meta,
      body,
      reason,
      now,
    );
    out.push({
      table: 'cp_checkpoints',
      ns: thread.ns,
      checkpointId: info.checkpoint_id,
      seq: info.seq,
      reason,
    });
    dropWrites.run(info.seq);
    dropCheckpoint.run(info.seq);
  }

  const blobs = db
    .prepare<[number], { id: number; hash: Buffer; data: Buffer }>(
      'SELECT id, hash, data FROM cp_blobs WHERE thread = ?',
    )
    .all(thread.id)
    .filter((b) => check.badBlobs.has(b.id));
  const dropBlob = db.prepare('DELETE FROM cp_blobs WHERE id = ?');
  for (const blob of blobs) {
    const reason = check.badBlobs.get(blob.id)!;
    const meta = JSON.stringify({ id: blob.id, thread: thread.id, hash: blob.hash.toString('base64') });
    keep.run(sessionId, thread.ns, 'cp_blobs', null, null, null, blob.id, meta, blob.data, reason, now);
    out.push({ table: 'cp_blobs', ns: thread.ns, blobId: blob.id, reason });
    dropBlob.run(blob.id);
  }
  if (blobs.length === 0) return false;
  // Other processes cache "this thread stores the value with this hash at id N" by thread row: a new
  // row id makes those entries miss instead of pointing new checkpoints at a value that was moved.
  db.prepare('DELETE FROM cp_threads WHERE id = ?').run(thread.id);
  const fresh = Number(
    db.prepare('INSERT INTO cp_threads (thread_id, ns) VALUES (?, ?)').run(sessionId, thread.ns)
      .lastInsertRowid,
  );
  db.prepare('UPDATE cp_checkpoints SET thread = ? WHERE thread = ?').run(fresh, thread.id);
  db.prepare('UPDATE cp_blobs SET thread = ? WHERE thread = ?').run(fresh, thread.id);
  return true;
}

function withHead(db: Db, report: RepairReport): RepairReport {
  const head = db
    .prepare<[string], { checkpoint_id: string }>(
      `SELECT c.checkpoint_id FROM cp_checkpoints c JOIN cp_threads t ON t.id = c.thread
       WHERE t.thread_id = ? AND t.ns = '' AND c.body IS NOT NULL ORDER BY c.checkpoint_id DESC LIMIT 1`,
    )
    .get(report.sessionId);
  return head ? { ...report, head: head.checkpoint_id } : report;
}
