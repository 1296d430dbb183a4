import type { BirdieCheckpointer } from './checkpointer/saver.js';
import type { ThreadCheck } from './checkpointer/verify.js';
import { type Db, immediate } from './db.js';
import type { QuarantinedRecord, RepairReport } from './interface.js';
import type { Leases } from './leases.js';
import {
  type Moved,
  movedCheckpoint,
  movedValue,
  movedWrites,
  quarantineParams,
  stepsToMove,
} from './repair-plan.js';

interface Deps {
  db: Db;
  saver: BirdieCheckpointer;
  leases: Leases;
}

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
  const writesOf = db.prepare<[number], { task_id: string; writes: Buffer }>(
    'SELECT task_id, writes FROM cp_writes WHERE checkpoint = ? ORDER BY task_id',
  );
  const bodyOf = db.prepare<[number], { body: Buffer | null }>(
    'SELECT body FROM cp_checkpoints WHERE seq = ?',
  );
  const dropWrites = db.prepare('DELETE FROM cp_writes WHERE checkpoint = ?');
  const dropCheckpoint = db.prepare('DELETE FROM cp_checkpoints WHERE seq = ?');
  const move = ({ row, record }: Moved) => {
    keep.run(...quarantineParams(sessionId, thread.ns, row, now));
    out.push(record);
  };
  for (const { step, reason } of stepsToMove(infos, check.bad)) {
    for (const w of writesOf.all(step.seq)) move(movedWrites(thread.ns, step, w.task_id, w.writes, reason));
    const body = bodyOf.get(step.seq)?.body ?? null;
    move(movedCheckpoint(thread.ns, thread.id, step, body, reason, { chans: step.chans }));
    dropWrites.run(step.seq);
    dropCheckpoint.run(step.seq);
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
    move(
      movedValue(thread.ns, thread.id, blob.id, { hash: blob.hash.toString('base64') }, blob.data, reason),
    );
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
