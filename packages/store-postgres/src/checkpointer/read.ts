import {
  bodyTs,
  compareWrites,
  DamageError,
  decodeRef,
  parseBody,
  parseRecord,
  type Ref,
  reasonOf,
  refIds,
  type Serde,
  type StoredWrite,
  type WritesRecord,
} from '@birdie/store/backend';
import type { CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph';
import type { Queryable } from '../db.js';
import type { PgBlobStore } from './blobs.js';
import { unpackTasks } from './writes.js';

type PendingWriteTuple = NonNullable<CheckpointTuple['pendingWrites']>[number];

export interface CheckpointRow {
  seq: number;
  checkpoint_id: string;
  parent_seq: number | null;
  body: Buffer;
  /** The step's pending writes, per task (`writes.ts`). */
  writes: Buffer | null;
  parent: string | null;
  thread_id: string;
  ns: string;
}

export interface WriteRow {
  checkpoint: number;
  task_id: string;
  writes: Buffer;
}

/** Checkpoint and task ids are stored as `cp_key(id)` bytes (migration 5) and read back with `cp_key_text`. */
export const SELECT_CHECKPOINT = `SELECT c.seq, cp_key_text(c.checkpoint_id) AS checkpoint_id, c.parent_seq, c.body,
    c.writes, cp_key_text(p.checkpoint_id) AS parent, t.thread_id, t.ns
  FROM cp_checkpoints c JOIN cp_threads t ON t.id = c.thread LEFT JOIN cp_checkpoints p ON p.seq = c.parent_seq`;

/** What reading needs: the serializer, the blob store and a connection. */
export interface ReadContext {
  serde: Serde;
  blobs: PgBlobStore;
  q: Queryable;
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

/** Decodes a ref, placing damage at the record (`table`, `where`) that holds it. */
async function decodeAt(
  ctx: ReadContext,
  ref: Ref,
  blobs: ReadonlyMap<number, unknown>,
  table: DamageError['table'],
  where: DamageError['where'],
): Promise<unknown> {
  try {
    return await decodeRef(ref, ctx.serde, blobs);
  } catch (error) {
    if (error instanceof DamageError) throw error.at(where);
    throw new DamageError(table, `a value does not decode (${reasonOf(error)})`, where);
  }
}

async function loadAt(ctx: ReadContext, ids: number[], where: DamageError['where']) {
  try {
    return await ctx.blobs.load(ctx.q, ids);
  } catch (error) {
    if (error instanceof DamageError) throw error.at(where);
    throw error;
  }
}

const TASKS = '__pregel_tasks';

function maxVersion(a: string | number, b: string | number): string | number {
  if (typeof a === 'number' && typeof b === 'number') return Math.max(a, b);
  return String(a).localeCompare(String(b)) >= 0 ? a : b;
}

/** Decodes write rows, keeping only `keep(seq, channel)`, in `writesSortKey` order per checkpoint. */
export async function decodeWrites(
  ctx: ReadContext,
  rows: readonly WriteRow[],
  keep?: (seq: number, channel: string) => boolean,
): Promise<(StoredWrite & { seq: number })[]> {
  const parsed: { seq: number; taskId: string; p: string; w: WritesRecord['w'] }[] = [];
  for (const row of rows) {
    const record = parseRecord(row.writes, row.checkpoint, row.task_id);
    const w = keep ? record.w.filter(([, ch]) => keep(row.checkpoint, ch)) : record.w;
    if (w.length === 0) continue;
    parsed.push({ seq: row.checkpoint, taskId: row.task_id, p: record.p, w });
  }
  const refsOf = (w: WritesRecord['w']) => w.flatMap(([, , ref]) => refIds(ref));
  let blobs: Map<number, unknown>;
  try {
    blobs = await ctx.blobs.load(
      ctx.q,
      parsed.flatMap((r) => refsOf(r.w)),
    );
  } catch (error) {
    // One query for every record; on damage, name the first record that reads the bad value.
    const blobId = error instanceof DamageError ? error.where.blobId : undefined;
    const first = blobId === undefined ? undefined : parsed.find((r) => refsOf(r.w).includes(blobId));
    if (first) throw (error as DamageError).at({ seq: first.seq, taskId: first.taskId });
    throw error;
  }
  const out: (StoredWrite & { seq: number })[] = [];
  for (const { seq, taskId, p, w } of parsed) {
    const where = { seq, taskId };
    for (const [idx, channel, ref] of w) {
      const value = await decodeAt(ctx, ref, blobs, 'cp_writes', where);
      out.push({ seq, taskId, taskPath: p, idx, channel, value });
    }
  }
  return out.sort(compareWrites);
}

/** Decodes one stored channel value of the body of checkpoint `seq`. */
export async function decodeValue(ctx: ReadContext, ref: Ref, seq: number): Promise<unknown> {
  const blobs = await loadAt(ctx, refIds(ref), { seq });
  return decodeAt(ctx, ref, blobs, 'cp_checkpoints', { seq });
}

/** A stored row as LangGraph's tuple: values decoded, writes in `writesSortKey` order. */
export async function toTuple(ctx: ReadContext, row: CheckpointRow): Promise<CheckpointTuple> {
  const where = { seq: row.seq };
  const { body, metadata } = parseBody(row.body, row.seq);
  const refs = Object.values(body.vals);
  const writeRows = taskRows(row.seq, row.writes);
  const blobs = await loadAt(ctx, refs.flatMap(refIds), where);
  const channelValues: Record<string, unknown> = {};
  for (const [channel, ref] of Object.entries(body.vals)) {
    channelValues[channel] = await decodeAt(ctx, ref, blobs, 'cp_checkpoints', where);
  }
  if (body.v < 4 && row.parent_seq !== null)
    await migratePendingSends(ctx, row.parent_seq, channelValues, body.cv);
  const writes = await decodeWrites(ctx, writeRows);
  const configurable = { thread_id: row.thread_id, checkpoint_ns: row.ns, checkpoint_id: row.checkpoint_id };
  const tuple: CheckpointTuple = {
    config: { configurable },
    checkpoint: {
      v: body.v,
      id: row.checkpoint_id,
      ts: bodyTs(row.checkpoint_id, body),
      channel_values: channelValues,
      channel_versions: body.cv,
      versions_seen: body.vs,
    },
    metadata: (await decodeMetadata(ctx, metadata, row.seq)) as CheckpointMetadata,
    pendingWrites: writes.map((w): PendingWriteTuple => [w.taskId, w.channel, w.value]),
  };
  if (row.parent !== null)
    tuple.parentConfig = { configurable: { ...configurable, checkpoint_id: row.parent } };
  return tuple;
}

async function decodeMetadata(ctx: ReadContext, metadata: string, seq: number): Promise<unknown> {
  try {
    return await ctx.serde.loadsTyped('json', metadata);
  } catch (error) {
    throw new DamageError('cp_checkpoints', `its metadata does not decode (${reasonOf(error)})`, { seq });
  }
}

/** Checkpoints before format 4 kept pending sends as the parent's TASKS writes. */
async function migratePendingSends(
  ctx: ReadContext,
  parentSeq: number,
  values: Record<string, unknown>,
  versions: Record<string, string | number>,
): Promise<void> {
  const sends = await decodeWrites(ctx, await writesOf(ctx.q, [parentSeq]), (_seq, ch) => ch === TASKS);
  values[TASKS] = sends.map((w) => w.value);
  const existing = Object.values(versions);
  versions[TASKS] = existing.length > 0 ? existing.reduce(maxVersion) : 1;
}
