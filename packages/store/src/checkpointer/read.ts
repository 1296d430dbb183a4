import type { CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph';
import { decodeRef, type Ref, refIds } from './codec.js';
import { unpackText } from './compress.js';
import { compareWrites, type StoredWrite } from './order.js';
import type { CheckpointRow, WriteRow } from './rows.js';
import type { BirdieCheckpointer } from './saver.js';

type PendingWriteTuple = NonNullable<CheckpointTuple['pendingWrites']>[number];

/** A checkpoint row's body: the checkpoint without its id, values as refs. */
export interface Body {
  v: number;
  ts: string;
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
export function parseBody(packed: Buffer): { body: Body; metadata: string } {
  const text = unpackText(packed);
  const cut = text.indexOf('\n');
  return { body: JSON.parse(text.slice(0, cut)) as Body, metadata: text.slice(cut + 1) };
}

export function parseRecord(packed: Buffer): WritesRecord {
  return JSON.parse(unpackText(packed)) as WritesRecord;
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
  const ids: number[] = [];
  for (const row of rows) {
    const record = parseRecord(row.writes);
    const w = keep ? record.w.filter(([, ch]) => keep(row.checkpoint, ch)) : record.w;
    if (w.length === 0) continue;
    for (const [, , ref] of w) ids.push(...refIds(ref));
    parsed.push({ seq: row.checkpoint, taskId: row.task_id, p: record.p, w });
  }
  const blobs = await saver.blobs.load(ids);
  const out: (StoredWrite & { seq: number })[] = [];
  for (const { seq, taskId, p, w } of parsed) {
    for (const [idx, channel, ref] of w) {
      out.push({ seq, taskId, taskPath: p, idx, channel, value: await decodeRef(ref, saver.serde, blobs) });
    }
  }
  return out.sort(compareWrites);
}

/** Decodes one stored channel value of a body. */
export async function decodeValue(saver: BirdieCheckpointer, ref: Ref): Promise<unknown> {
  return decodeRef(ref, saver.serde, await saver.blobs.load(refIds(ref)));
}

/** A stored row as LangGraph's tuple: values decoded, writes in `writesSortKey` order. */
export async function toTuple(saver: BirdieCheckpointer, row: CheckpointRow): Promise<CheckpointTuple> {
  const { body, metadata } = parseBody(row.body);
  const refs = Object.values(body.vals);
  const blobs = await saver.blobs.load(refs.flatMap(refIds));
  const channelValues: Record<string, unknown> = {};
  for (const [channel, ref] of Object.entries(body.vals)) {
    channelValues[channel] = await decodeRef(ref, saver.serde, blobs);
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
      ts: body.ts,
      channel_values: channelValues,
      channel_versions: body.cv,
      versions_seen: body.vs,
    },
    metadata: (await saver.serde.loadsTyped('json', metadata)) as CheckpointMetadata,
    pendingWrites: writes.map((w): PendingWriteTuple => [w.taskId, w.channel, w.value]),
  };
  if (row.parent !== null) {
    tuple.parentConfig = { configurable: { ...configurable, checkpoint_id: row.parent } };
  }
  return tuple;
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
