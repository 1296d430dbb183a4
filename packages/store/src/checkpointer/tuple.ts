import type { CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph';
import { decodeRef, type Ref, refIds, type Serde } from './codec.js';
import { DamageError, reasonOf } from './damage.js';
import { compareWrites, type StoredWrite } from './order.js';
import { parseBody, parseRecord, type WritesRecord } from './read.js';
import { bodyTs } from './timestamp.js';

// Stored rows as LangGraph's tuples, the same for every back end: a back end says how it loads values and
// write records (a `TupleSource`), and these decode them and place any damage at the record that holds it.

type PendingWriteTuple = NonNullable<CheckpointTuple['pendingWrites']>[number];

/** A checkpoint row as read for a tuple (its id and its parent's as text). */
export interface TupleRow {
  seq: number;
  checkpoint_id: string;
  parent_seq: number | null;
  body: Buffer;
  parent: string | null;
  thread_id: string;
  ns: string;
}

/** One task's write record against checkpoint `checkpoint`. */
export interface WriteRow {
  checkpoint: number;
  task_id: string;
  writes: Buffer;
}

/** How a back end reads what a tuple needs besides the checkpoint row. */
export interface TupleSource<R extends TupleRow = TupleRow> {
  serde: Serde;
  /** The stored values with these ids; a damaged or missing one throws a `DamageError` naming it. */
  loadValues(ids: number[]): Promise<Map<number, unknown>>;
  /** The write records of the checkpoint `row` (PostgreSQL keeps them in the row itself). */
  ownWrites(row: R): readonly WriteRow[] | Promise<readonly WriteRow[]>;
  /** The write records of checkpoint `seq`. */
  writesOf(seq: number): readonly WriteRow[] | Promise<readonly WriteRow[]>;
}

/** Decodes a ref, placing damage at the record (`table`, `where`) that holds it. */
async function decodeAt(
  src: TupleSource,
  ref: Ref,
  blobs: ReadonlyMap<number, unknown>,
  table: DamageError['table'],
  where: DamageError['where'],
): Promise<unknown> {
  try {
    return await decodeRef(ref, src.serde, blobs);
  } catch (error) {
    if (error instanceof DamageError) throw error.at(where);
    throw new DamageError(table, `a value does not decode (${reasonOf(error)})`, where);
  }
}

/** Loads blobs for the record at `where`; a damaged or missing one is reported at that step. */
async function loadAt(src: TupleSource, ids: number[], where: DamageError['where']) {
  try {
    return await src.loadValues(ids);
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

/** Decodes write rows, keeping only `keep(channel)`, in `writesSortKey` order per checkpoint. */
export async function decodeWrites(
  src: TupleSource,
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
    blobs = await src.loadValues(parsed.flatMap((r) => refsOf(r.w)));
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
      const value = await decodeAt(src, ref, blobs, 'cp_writes', where);
      out.push({ seq, taskId, taskPath: p, idx, channel, value });
    }
  }
  return out.sort(compareWrites);
}

/** Decodes one stored channel value of the body of checkpoint `seq`. */
export async function decodeValue(src: TupleSource, ref: Ref, seq: number): Promise<unknown> {
  const blobs = await loadAt(src, refIds(ref), { seq });
  return decodeAt(src, ref, blobs, 'cp_checkpoints', { seq });
}

/** A stored row as LangGraph's tuple: values decoded, writes in `writesSortKey` order. */
export async function toTuple<R extends TupleRow>(src: TupleSource<R>, row: R): Promise<CheckpointTuple> {
  const where = { seq: row.seq };
  const { body, metadata } = parseBody(row.body, row.seq);
  const refs = Object.values(body.vals);
  const writeRows = await src.ownWrites(row);
  const blobs = await loadAt(src, refs.flatMap(refIds), where);
  const channelValues: Record<string, unknown> = {};
  for (const [channel, ref] of Object.entries(body.vals)) {
    channelValues[channel] = await decodeAt(src, ref, blobs, 'cp_checkpoints', where);
  }
  if (body.v < 4 && row.parent_seq !== null)
    await migratePendingSends(src, row.parent_seq, channelValues, body.cv);
  const writes = await decodeWrites(src, writeRows);
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
    metadata: (await decodeMetadata(src, metadata, row.seq)) as CheckpointMetadata,
    pendingWrites: writes.map((w): PendingWriteTuple => [w.taskId, w.channel, w.value]),
  };
  if (row.parent !== null) {
    tuple.parentConfig = { configurable: { ...configurable, checkpoint_id: row.parent } };
  }
  return tuple;
}

async function decodeMetadata(src: TupleSource, metadata: string, seq: number): Promise<unknown> {
  try {
    return await src.serde.loadsTyped('json', metadata);
  } catch (error) {
    throw new DamageError('cp_checkpoints', `its metadata does not decode (${reasonOf(error)})`, { seq });
  }
}

/** Checkpoints before format 4 kept pending sends as the parent's TASKS writes. */
async function migratePendingSends(
  src: TupleSource,
  parentSeq: number,
  values: Record<string, unknown>,
  versions: Record<string, string | number>,
): Promise<void> {
  const sends = await decodeWrites(src, await src.writesOf(parentSeq), (_seq, ch) => ch === TASKS);
  values[TASKS] = sends.map((w) => w.value);
  const existing = Object.values(versions);
  // With no version yet, LangGraph's first one (what `getNextVersion(undefined)` gives).
  versions[TASKS] = existing.length > 0 ? existing.reduce(maxVersion) : 1;
}
