import {
  type DamagedRecord,
  DamageError,
  decodeRef,
  parseBody,
  parseRecord,
  type Ref,
  reasonOf,
  refIds,
} from '@birdie/store/backend';
import type { ReadContext } from './read.js';
import { type TaskWrites, unpackTasks } from './writes.js';

/** What checking every stored record of one session found. */
export interface ThreadCheck {
  threadId: string;
  /** Each damaged record once: a damaged value is listed as `cp_blobs`, at the first step that reads it. */
  damaged: DamagedRecord[];
  /** Checkpoints that cannot be read back: damaged, reading a damaged value, or descended from one. */
  tainted: Set<number>;
  /** The checkpoints whose own records are damaged (the roots of `tainted`). */
  bad: Map<number, string>;
  /** Damaged values, by blob id, with the reason. */
  badBlobs: Map<number, string>;
  /** Per namespace, the newest checkpoint outside `tainted`. */
  lastGood: Map<string, { seq: number; checkpointId: string }>;
  /** Records decoded. */
  checked: number;
}

const PAGE = 256;

interface Problem {
  reason: string;
  /** The record itself is damaged (not only a value it reads). */
  own: boolean;
}

interface CheckpointInfo {
  seq: number;
  checkpoint_id: string;
  parent_seq: number | null;
  stored: boolean;
  ns: string;
}

/**
 * Decodes every record of the session `threadId` (all namespaces): values (checksum, inflate,
 * serializer), checkpoint bodies with their metadata and inline values, and write records; then marks
 * what cannot be read back. Reads in pages.
 */
export async function checkThread(ctx: ReadContext, threadId: string): Promise<ThreadCheck> {
  const { q } = ctx;
  const check: ThreadCheck = {
    threadId,
    damaged: [],
    tainted: new Set(),
    bad: new Map(),
    badBlobs: new Map(),
    lastGood: new Map(),
    checked: 0,
  };
  const { rows: threads } = await q.query<{ id: number; ns: string }>(
    'SELECT id, ns FROM cp_threads WHERE thread_id = $1',
    [threadId],
  );
  for (const thread of threads) await checkNamespace(ctx, check, thread.id, thread.ns);
  return check;
}

async function checkNamespace(ctx: ReadContext, check: ThreadCheck, thread: number, ns: string) {
  const { q } = ctx;
  const infos = (
    await q.query<Omit<CheckpointInfo, 'ns'>>(
      `SELECT seq, cp_key_text(checkpoint_id) AS checkpoint_id, parent_seq, body IS NOT NULL AS stored
       FROM cp_checkpoints WHERE thread = $1`,
      [thread],
    )
  ).rows.map((info) => ({ ...info, ns }));
  const idOf = new Map(infos.map((i) => [i.seq, i.checkpoint_id]));
  const record = (d: Omit<DamagedRecord, 'sessionId' | 'ns'>) => {
    const entry: DamagedRecord = { sessionId: check.threadId, ns, ...d };
    if (d.seq !== undefined && idOf.has(d.seq)) entry.checkpointId = idOf.get(d.seq)!;
    check.damaged.push(entry);
  };
  const markBad = (seq: number, reason: string) => {
    if (!check.bad.has(seq)) check.bad.set(seq, reason);
  };

  // Values first, so the records that read them know which ones are gone or damaged.
  const blobIds = new Set<number>();
  const badHere = new Map<number, string>();
  for (let after = 0; ; ) {
    const { rows } = await q.query<{ id: number; data: Buffer }>(
      'SELECT id, data FROM cp_blobs WHERE thread = $1 AND id > $2 ORDER BY id LIMIT $3',
      [thread, after, PAGE],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      blobIds.add(row.id);
      check.checked += 1;
      try {
        await ctx.blobs.decode(row.id, row.data);
      } catch (error) {
        badHere.set(row.id, error instanceof DamageError ? error.reason : reasonOf(error));
      }
    }
    after = rows.at(-1)!.id;
  }
  const firstReader = new Map<number, number>();
  // A record reading a damaged value is unreadable but not itself damaged: the value is listed instead.
  const refsProblem = async (refs: Ref[], seq: number): Promise<Problem | undefined> => {
    for (const id of refs.flatMap(refIds)) {
      if (!blobIds.has(id)) return { reason: `refers to stored value ${id}, which is missing`, own: true };
      if (badHere.has(id)) {
        if (!firstReader.has(id) || firstReader.get(id)! > seq) firstReader.set(id, seq);
        return { reason: `reads stored value ${id}, which is damaged`, own: false };
      }
    }
    for (const ref of refs) {
      try {
        await decodeRef(ref, ctx.serde, new Map());
      } catch (error) {
        return { reason: `a value does not decode (${reasonOf(error)})`, own: true };
      }
    }
    return undefined;
  };
  const own = (error: unknown): Problem => ({
    reason: error instanceof DamageError ? error.reason : reasonOf(error),
    own: true,
  });

  for (let after = 0; ; ) {
    const { rows } = await q.query<{ seq: number; body: Buffer }>(
      'SELECT seq, body FROM cp_checkpoints WHERE thread = $1 AND body IS NOT NULL AND seq > $2 ORDER BY seq LIMIT $3',
      [thread, after, PAGE],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      check.checked += 1;
      let problem: Problem | undefined;
      try {
        const { body, metadata } = parseBody(row.body, row.seq);
        problem = await refsProblem(Object.values(body.vals), row.seq);
        if (!problem) {
          try {
            await ctx.serde.loadsTyped('json', metadata);
          } catch (error) {
            problem = { reason: `its metadata does not decode (${reasonOf(error)})`, own: true };
          }
        }
      } catch (error) {
        problem = own(error);
      }
      if (!problem) continue;
      if (problem.own) record({ table: 'cp_checkpoints', seq: row.seq, reason: problem.reason });
      markBad(row.seq, problem.reason);
    }
    after = rows.at(-1)!.seq;
  }

  for (let after = 0; ; ) {
    const { rows } = await q.query<{ seq: number; writes: Buffer }>(
      `SELECT seq, writes FROM cp_checkpoints WHERE thread = $1 AND writes IS NOT NULL AND seq > $2
       ORDER BY seq LIMIT $3`,
      [thread, after, PAGE],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      let tasks: TaskWrites[];
      try {
        tasks = unpackTasks(row.writes, row.seq);
      } catch (error) {
        check.checked += 1;
        const problem = own(error);
        record({ table: 'cp_writes', seq: row.seq, reason: problem.reason });
        markBad(row.seq, problem.reason);
        continue;
      }
      for (const task of tasks) {
        check.checked += 1;
        let problem: Problem | undefined;
        try {
          const parsed = parseRecord(task.record, row.seq, task.taskId);
          problem = await refsProblem(
            parsed.w.map(([, , ref]) => ref),
            row.seq,
          );
        } catch (error) {
          problem = own(error);
        }
        if (!problem) continue;
        if (problem.own) {
          record({ table: 'cp_writes', seq: row.seq, taskId: task.taskId, reason: problem.reason });
        }
        markBad(row.seq, problem.reason);
      }
    }
    after = rows.at(-1)!.seq;
  }

  for (const [id, reason] of badHere) {
    check.badBlobs.set(id, reason);
    const seq = firstReader.get(id);
    record({ table: 'cp_blobs', blobId: id, reason, ...(seq === undefined ? {} : { seq }) });
  }

  // Everything that descends from a bad checkpoint replays its records: it cannot be read either.
  const children = new Map<number, number[]>();
  for (const info of infos) {
    if (info.parent_seq === null) continue;
    children.set(info.parent_seq, [...(children.get(info.parent_seq) ?? []), info.seq]);
  }
  const queue = infos.filter((i) => check.bad.has(i.seq)).map((i) => i.seq);
  while (queue.length > 0) {
    const seq = queue.pop()!;
    if (check.tainted.has(seq)) continue;
    check.tainted.add(seq);
    queue.push(...(children.get(seq) ?? []));
  }
  let best: CheckpointInfo | undefined;
  for (const info of infos) {
    if (!info.stored || check.tainted.has(info.seq)) continue;
    if (!best || info.checkpoint_id > best.checkpoint_id) best = info;
  }
  if (best) check.lastGood.set(ns, { seq: best.seq, checkpointId: best.checkpoint_id });
}
