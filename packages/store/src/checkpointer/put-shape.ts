import type { BaseCheckpointSaver, Checkpoint } from '@langchain/langgraph';
import { type Encoder, type Ref, resolveRef } from './codec.js';
import { SPECIAL_WRITE_INDEX } from './order.js';
import type { Body, WritesRecord } from './read.js';
import { storedTs } from './timestamp.js';

// How a put and a putWrites shape their records, apart from the transaction that stores them: both back
// ends encode, inherit and merge the same way, so their rows read back alike.

type ChannelVersions = Parameters<BaseCheckpointSaver['put']>[3];
type PendingWrite = Parameters<BaseCheckpointSaver['putWrites']>[1][number];

/** A write drafted before its values have ids: `[idx, channel, ref]`. */
export type WriteDraft = [number, string, Ref];

/** Only channels with a new version are serialised; the others keep the parent's stored value. */
export async function draftValues(
  encoder: Encoder,
  checkpoint: Checkpoint,
  newVersions: ChannelVersions,
): Promise<Record<string, Ref>> {
  const drafts: Record<string, Ref> = {};
  const values = checkpoint.channel_values ?? {};
  for (const channel of Object.keys(values)) {
    if (Object.hasOwn(newVersions, channel)) drafts[channel] = await encoder.encode(values[channel]);
  }
  return drafts;
}

/** A task's writes, indexed as LangGraph orders them (special channels at their fixed negative index). */
export async function draftWrites(encoder: Encoder, writes: PendingWrite[]): Promise<WriteDraft[]> {
  const drafts: WriteDraft[] = [];
  for (const [i, [channel, value]] of writes.entries()) {
    drafts.push([SPECIAL_WRITE_INDEX[channel] ?? i, channel, await encoder.encode(value)]);
  }
  return drafts;
}

/**
 * Refs of the parent's stored values whose channel version did not change: same branch, same version, same
 * value. Keyed by parent rather than by version, so forks never mix.
 */
export function inheritedVals(
  parent: Body | undefined,
  versions: ChannelVersions,
  changed: ChannelVersions,
): Record<string, Ref> {
  const vals: Record<string, Ref> = {};
  if (!parent) return vals;
  for (const [channel, ref] of Object.entries(parent.vals)) {
    if (
      !Object.hasOwn(changed, channel) &&
      versions[channel] !== undefined &&
      parent.cv[channel] === versions[channel]
    ) {
      vals[channel] = ref;
    }
  }
  return vals;
}

/**
 * The body of `checkpoint` (inherited refs plus the drafts, now with the ids `ids` of their stored values) and
 * the text to pack.
 */
export function checkpointText(
  checkpoint: Checkpoint,
  vals: Record<string, Ref>,
  drafts: Record<string, Ref>,
  ids: readonly number[],
  metadataJson: Uint8Array,
): { body: Body; text: string } {
  for (const channel of Object.keys(drafts)) vals[channel] = resolveRef(drafts[channel]!, ids);
  const body: Body = {
    v: checkpoint.v,
    ...storedTs(checkpoint.id, checkpoint.ts),
    cv: checkpoint.channel_versions,
    vs: checkpoint.versions_seen,
    vals,
  };
  // Metadata is the serializer's own JSON, appended after a newline (JSON text never has a raw one).
  return { body, text: `${JSON.stringify(body)}\n${Buffer.from(metadataJson).toString('utf8')}` };
}

/** Adds the drafted writes to a task's record, in index order; `record` is changed and returned. */
export function mergeWrites(
  record: WritesRecord,
  drafts: WriteDraft[],
  ids: readonly number[],
): WritesRecord {
  const byIdx = new Map(record.w.map((w) => [w[0], w]));
  for (const [idx, channel, ref] of drafts) {
    // A regular write is stored once (retries are no-ops); special writes replace.
    if (idx >= 0 && byIdx.has(idx)) continue;
    byIdx.set(idx, [idx, channel, resolveRef(ref, ids)]);
  }
  record.w = [...byIdx.values()].sort((a, b) => a[0] - b[0]);
  return record;
}

/** Keeps the last few bodies put, so a child's put finds its parent's refs without reading them back. */
export function rememberBody(recent: Map<number, Body>, seq: number, body: Body): void {
  recent.delete(seq);
  recent.set(seq, body);
  if (recent.size > 8) recent.delete(recent.keys().next().value!);
}
