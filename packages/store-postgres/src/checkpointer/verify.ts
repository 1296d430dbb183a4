import {
  CHECK_PAGE,
  type CheckpointInfo,
  emptyThreadCheck,
  NamespaceCheck,
  type ThreadCheck,
} from '@birdie/store/backend';
import type { ReadContext } from './read.js';
import { type TaskWrites, unpackTasks } from './writes.js';

export type { ThreadCheck } from '@birdie/store/backend';

/**
 * Decodes every record of the session `threadId` (all namespaces): values (checksum, inflate,
 * serializer), checkpoint bodies with their metadata and inline values, and write records; then marks
 * what cannot be read back. Reads in pages.
 */
export async function checkThread(ctx: ReadContext, threadId: string): Promise<ThreadCheck> {
  const { q } = ctx;
  const check = emptyThreadCheck(threadId);
  const { rows: threads } = await q.query<{ id: number; ns: string }>(
    'SELECT id, ns FROM cp_threads WHERE thread_id = $1',
    [threadId],
  );
  for (const thread of threads) await checkNamespace(ctx, check, thread.id, thread.ns);
  return check;
}

async function checkNamespace(ctx: ReadContext, check: ThreadCheck, thread: number, ns: string) {
  const { q } = ctx;
  const { rows: infos } = await q.query<CheckpointInfo>(
    `SELECT seq, cp_key_text(checkpoint_id) AS checkpoint_id, parent_seq, body IS NOT NULL AS stored
     FROM cp_checkpoints WHERE thread = $1`,
    [thread],
  );
  const checker = new NamespaceCheck(check, ns, infos, ctx.serde, ctx.blobs);

  for (let after = 0; ; ) {
    const { rows } = await q.query<{ id: number; data: Buffer }>(
      'SELECT id, data FROM cp_blobs WHERE thread = $1 AND id > $2 ORDER BY id LIMIT $3',
      [thread, after, CHECK_PAGE],
    );
    if (rows.length === 0) break;
    for (const row of rows) await checker.value(row.id, row.data);
    after = rows.at(-1)!.id;
  }

  for (let after = 0; ; ) {
    const { rows } = await q.query<{ seq: number; body: Buffer }>(
      'SELECT seq, body FROM cp_checkpoints WHERE thread = $1 AND body IS NOT NULL AND seq > $2 ORDER BY seq LIMIT $3',
      [thread, after, CHECK_PAGE],
    );
    if (rows.length === 0) break;
    for (const row of rows) await checker.body(row.seq, row.body);
    after = rows.at(-1)!.seq;
  }

  // Since migration 6 a step's write records live in its checkpoint row, packed by task.
  for (let after = 0; ; ) {
    const { rows } = await q.query<{ seq: number; writes: Buffer }>(
      `SELECT seq, writes FROM cp_checkpoints WHERE thread = $1 AND writes IS NOT NULL AND seq > $2
       ORDER BY seq LIMIT $3`,
      [thread, after, CHECK_PAGE],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      let tasks: TaskWrites[];
      try {
        tasks = unpackTasks(row.writes, row.seq);
      } catch (error) {
        checker.unreadableWrites(row.seq, error);
        continue;
      }
      for (const task of tasks) await checker.writes(row.seq, task.taskId, task.record);
    }
    after = rows.at(-1)!.seq;
  }

  checker.finish();
}
