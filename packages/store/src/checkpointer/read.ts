import type { CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph';
import { decodeRef, type Ref, refIds } from './codec.js';
import { unpackText } from './compress.js';
import { DamageError, decoding, reasonOf } from './damage.js';
import { compareWrites, type StoredWrite } from './order.js';
import type { CheckpointRow, WriteRow } from './rows.js';
import type { BirdieCheckpointer } from './saver.js';
import { bodyTs } from './timestamp.js';

type PendingWriteTuple = NonNullable<CheckpointTuple['pendingWrites']>[number];

/** A checkpoint row's body: the checkpoint without its id, values as refs; `ts` or its gap `dt` (see timestamp.ts). */
export interface Body {
  v: number;
  ts?: string;
  dt?: number;
  cv: Record<string, string | number>;
  vs: Record<string, Record<string, string | number>>;
  vals: Record<string, Ref>;
}

/** A cp_writes row: all writes of one task against one checkpoint. */
export interface WritesRecord {
  p: string;
  w: [idx: number, channel: string, value: Ref][];
}

/** A packed `body` column: checkpoint JSON, a newline, then the serializer's metadata JSON. */
export function parseBody(packed: Buffer, seq?: number): { body: Body; metadata: string } {
  return decoding(
    'cp_checkpoints',
    () => {
      const text = unpackText(packed, 'cp_checkpoints');
      const cut = text.indexOf('\n');
      if (cut < 0) throw new Error('no metadata separator');
      const body = JSON.parse(text.slice(0, cut)) as Body;
      if (typeof body !== 'object' || body === null || typeof body.vals !== 'object' || body.vals === null) {
        throw new Error('not a checkpoint body');
      }
      if (typeof body.ts !== 'string' && typeof body.dt !== 'number') throw new Error('no timestamp');
      return { body, metadata: text.slice(cut + 1) };
    },
    seq === undefined ? {} : { seq },
  );
}

export function parseRecord(packed: Buffer, seq?: number, taskId?: string): WritesRecord {
  const where = { ...(seq === undefined ? {} : { seq }), ...(taskId === undefined ? {} : { taskId }) };
  return decoding(
    'cp_writes',
    () => {
      const record = JSON.parse(unpackText(packed, 'cp_writes')) as WritesRecord;
      if (typeof record !== 'object' || record === null || !Array.isArray(record.w)) {
        throw new Error('not a writes record');
      }
      return record;
    },
    where,
  );
}

/** Decodes a ref, placing damage at the record (`table`, `where`) that holds it. */
async function decodeAt(
  saver: BirdieCheckpointer,
  ref: Ref,
  blobs: ReadonlyMap<number, unknown>,
  table: DamageError['table'],
  where: DamageError['where'],
): Promise<unknown> {
  try {
    return await decodeRef(ref, saver.serde, blobs);
  } catch (error) {
    if (error instanceof DamageError) throw error.at(where);
    throw new DamageError(table, `a value does not decode (${reasonOf(error)})`, where);
  }
}

/** Loads blobs for the record at `where`; a damaged or missing one is reported at that step. */
async function loadAt(saver: BirdieCheckpointer, ids: number[], where: DamageError['where']) {
  try {
    return await saver.blobs.load(ids);
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
  saver: BirdieCheckpointer,
  rows: readonly WriteRow[],
  keep?: (seq: number, channel: string) => boolean,
) {
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
    blobs = await saver.blobs.load(parsed.flatMap((r) => refsOf(r.w)));
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
      const value = await decodeAt(saver, ref, blobs, 'cp_writes', where);
      out.push({ seq, taskId, taskPath: p, idx, channel, value });
    }
  }
  return out.sort(compareWrites);
}

/** Decodes one stored channel value of the body of checkpoint `seq`. */
export async function decodeValue(saver: BirdieCheckpointer, ref: Ref, seq: number): Promise<unknown> {
  const blobs = await loadAt(saver, refIds(ref), { seq });
  return decodeAt(saver, ref, blobs, 'cp_checkpoints', { seq });
}

/** A stored row as LangGraph's tuple: values decoded, writes in `writesSortKey` order. */
export async function toTuple(saver: BirdieCheckpointer, row: CheckpointRow): Promise<CheckpointTuple> {
  const where = { seq: row.seq };
  const { body, metadata } = parseBody(row.body, row.seq);
  const refs = Object.values(body.vals);
  const blobs = await loadAt(saver, refs.flatMap(refIds), where);
  const channelValues: Record<string, unknown> = {};
  for (const [channel, ref] of Object.entries(body.vals)) {
    channelValues[channel] = await decodeAt(saver, ref, blobs, 'cp_checkpoints', where);
  }
  if (body.v < 4 && row.parent_seq !== null)
    await migratePendingSends(saver, row.parent_seq, channelValues, body.cv);
  const writes = await decodeWrites(saver, saver.rows.writesOf.all(row.seq));
  const configurable = {
    thread_id: row.thread_id,
    checkpoint_ns: row.ns,
    checkpoint_id: row.checkpoint_id,
  };
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
    metadata: (await decodeMetadata(saver, metadata, row.seq)) as CheckpointMetadata,
    pendingWrites: writes.map((w): PendingWriteTuple => [w.taskId, w.channel, w.value]),
  };
  if (row.parent !== null) {
    tuple.parentConfig = { configurable: { ...configurable, checkpoint_id: row.parent } };
  }
  return tuple;
}

async function decodeMetadata(saver: BirdieCheckpointer, metadata: string, seq: number): Promise<unknown> {
  try {
    return await saver.serde.loadsTyped('json', metadata);
  } catch (error) {
    throw new DamageError('cp_checkpoints', `its metadata does not decode (${reasonOf(error)})`, { seq });
  }
}

/** Checkpoints before format 4 kept pending sends as the parent's TASKS writes. */
async function migratePendingSends(
  saver: BirdieCheckpointer,
  parentSeq: number,
  values: Record<string, unknown>,
  versions: Record<string, string | number>,
): Promise<void> {
  const sends = await decodeWrites(saver, saver.rows.writesOf.all(parentSeq), (_seq, ch) => ch === TASKS);
  values[TASKS] = sends.map((w) => w.value);
  const existing = Object.values(versions);
  versions[TASKS] = existing.length > 0 ? existing.reduce(maxVersion) : saver.getNextVersion(undefined);
}
