import type { Db } from '../db.js';
import type { BlobStore } from './blobs.js';
import type { Serde } from './codec.js';
import {
  CHECK_PAGE,
  type CheckpointInfo,
  emptyThreadCheck,
  NamespaceCheck,
  type ThreadCheck,
} from './thread-check.js';

export type { ThreadCheck } from './thread-check.js';

export interface VerifyContext {
  db: Db;
  serde: Serde;
  blobs: BlobStore;
}

/**
 * Decodes every record of the session `threadId` (all namespaces): values (checksum, inflate,
 * serializer), checkpoint bodies with their metadata and inline values, and write records; then marks
 * what cannot be read back. Reads in pages, with no statement left open across an await.
 */
export async function checkThread(ctx: VerifyContext, threadId: string): Promise<ThreadCheck> {
  const { db } = ctx;
  const check = emptyThreadCheck(threadId);
  const threads = db
    .prepare<[string], { id: number; ns: string }>('SELECT id, ns FROM cp_threads WHERE thread_id = ?')
    .all(threadId);
  for (const thread of threads) await checkNamespace(ctx, check, thread.id, thread.ns);
  return check;
}

async function checkNamespace(ctx: VerifyContext, check: ThreadCheck, thread: number, ns: string) {
  const { db } = ctx;
  const infos = db
    .prepare<[number], CheckpointInfo>(
      'SELECT seq, checkpoint_id, parent_seq, body IS NOT NULL AS stored FROM cp_checkpoints WHERE thread = ?',
    )
    .all(thread);
  const checker = new NamespaceCheck(check, ns, infos, ctx.serde, ctx.blobs);

  const blobPage = db.prepare<[number, number, number], { id: number; data: Buffer }>(
    'SELECT id, data FROM cp_blobs WHERE thread = ? AND id > ? ORDER BY id LIMIT ?',
  );
  for (let after = 0; ; ) {
    const rows = blobPage.all(thread, after, CHECK_PAGE);
    if (rows.length === 0) break;
    for (const row of rows) await checker.value(row.id, row.data);
    after = rows.at(-1)!.id;
  }

  const bodyPage = db.prepare<[number, number, number], { seq: number; body: Buffer }>(
    'SELECT seq, body FROM cp_checkpoints WHERE thread = ? AND body IS NOT NULL AND seq > ? ORDER BY seq LIMIT ?',
  );
  for (let after = 0; ; ) {
    const rows = bodyPage.all(thread, after, CHECK_PAGE);
    if (rows.length === 0) break;
    for (const row of rows) await checker.body(row.seq, row.body);
    after = rows.at(-1)!.seq;
  }

  const writePage = db.prepare<
    [number, number, string, number],
    { checkpoint: number; task_id: string; writes: Buffer }
  >(
    `SELECT w.checkpoint, w.task_id, w.writes FROM cp_writes w JOIN cp_checkpoints c ON c.seq = w.checkpoint
     WHERE c.thread = ? AND (w.checkpoint, w.task_id) > (?, ?) ORDER BY w.checkpoint, w.task_id LIMIT ?`,
  );
  for (let after: [number, string] = [0, '']; ; ) {
    const rows = writePage.all(thread, after[0], after[1], CHECK_PAGE);
    if (rows.length === 0) break;
    for (const row of rows) await checker.writes(row.checkpoint, row.task_id, row.writes);
    const last = rows.at(-1)!;
    after = [last.checkpoint, last.task_id];
  }

  checker.finish();
}
