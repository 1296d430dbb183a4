import type { RunnableConfig } from '@langchain/core/runnables';
import { parseBody } from './read.js';
import type { BirdieCheckpointer, DeltaChannelHistory } from './saver.js';
import { decodeValue, decodeWrites } from './tuple.js';

type Write = DeltaChannelHistory['writes'][number];

interface Cached {
  seed?: unknown;
  hasSeed: boolean;
  writes: readonly Write[];
}

/** Histories kept per target checkpoint: the next turn's target descends from the last one. */
const CACHE_MAX = 16;

/**
 * Per-process memo of computed histories, by checkpoint row. history(T) for a descendant T of
 * a cached X is history(X) + the writes stored on the path X..parent(T), so a load reads only
 * the checkpoints added since the previous load instead of everything since the last snapshot.
 */
export class HistoryCache {
  private readonly entries = new Map<number, Map<string, Cached>>();

  get(seq: number): Map<string, Cached> | undefined {
    return this.entries.get(seq);
  }

  set(seq: number, value: Map<string, Cached>): void {
    this.entries.delete(seq);
    this.entries.set(seq, value);
    if (this.entries.size > CACHE_MAX) this.entries.delete(this.entries.keys().next().value!);
  }

  /** New writes on checkpoint `seq` change the history of checkpoints created after it. */
  invalidateAfter(seq: number): void {
    for (const key of [...this.entries.keys()]) if (key > seq) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * `getDeltaChannelHistory` over SQL: one recursive query yields the ancestors nearest first,
 * and reading stops as soon as every channel met a checkpoint that stores a value for it (the
 * `chans` column says so without inflating the body) or a checkpoint whose history is cached.
 * One more query fetches the writes of exactly those ancestors.
 */
export async function deltaHistory(
  saver: BirdieCheckpointer,
  cache: HistoryCache,
  config: RunnableConfig,
  channels: string[],
): Promise<Record<string, DeltaChannelHistory>> {
  if (channels.length === 0) return {};
  const start = saver.targetSeq(config);
  if (start === undefined) return toResult(channels.map((ch) => [ch, { hasSeed: false, writes: [] }]));

  const hit = cache.get(start);
  if (hit && channels.every((ch) => hit.has(ch))) return toResult(channels.map((ch) => [ch, hit.get(ch)!]));

  // Walk: for each ancestor, which channels still collect writes there, and which stop there.
  const remaining = new Set(channels);
  const active = new Map<number, Set<string>>();
  const seeds: [seq: number, channel: string][] = [];
  const fromCache = new Map<string, Cached>();
  for (const row of saver.rows.chain.iterate(start)) {
    if (!row.stored) break; // a parent referenced but never put: the walk ends there, as getTuple's would
    active.set(row.seq, new Set(remaining));
    for (const ch of [...remaining]) {
      if (row.chans?.includes(`\n${ch}\n`)) {
        seeds.push([row.seq, ch]);
        remaining.delete(ch);
      }
    }
    const cached = cache.get(row.seq);
    if (cached) {
      for (const ch of [...remaining]) {
        const entry = cached.get(ch);
        if (entry) {
          fromCache.set(ch, entry);
          remaining.delete(ch);
        }
      }
    }
    if (remaining.size === 0) break;
  }

  const collected = new Map<string, Write[]>(channels.map((ch) => [ch, []]));
  if (active.size > 0) {
    const rows = saver.rows.writesIn.all(JSON.stringify([...active.keys()]));
    const writes = await decodeWrites(saver.source, rows, (seq, ch) => active.get(seq)?.has(ch) === true);
    // Ancestors were collected nearest first; replay wants oldest first, each step in write order.
    const order = new Map([...active.keys()].reverse().map((seq, i) => [seq, i]));
    writes.sort((a, b) => order.get(a.seq)! - order.get(b.seq)!);
    for (const w of writes) collected.get(w.channel)!.push([w.taskId, w.channel, w.value]);
  }

  const computed = new Map<string, Cached>();
  for (const ch of channels) {
    const older = fromCache.get(ch);
    const newer = collected.get(ch)!;
    const entry: Cached = older
      ? { ...older, writes: older.writes.concat(newer) }
      : { hasSeed: false, writes: newer };
    computed.set(ch, entry);
  }
  for (const [seq, ch] of seeds) {
    const { body } = parseBody(saver.rows.bodyOf.get(seq)!.body, seq);
    const seed = await decodeValue(saver.source, body.vals[ch]!, seq);
    computed.set(ch, { ...computed.get(ch)!, seed, hasSeed: true });
  }
  cache.set(start, computed);
  return toResult(computed);
}

/** Fresh arrays for the caller; the cached ones are shared with later loads. */
function toResult(entries: Iterable<[string, Cached]>): Record<string, DeltaChannelHistory> {
  const result: Record<string, DeltaChannelHistory> = {};
  for (const [ch, entry] of entries) {
    result[ch] = entry.hasSeed
      ? { seed: entry.seed, writes: [...entry.writes] }
      : { writes: [...entry.writes] };
  }
  return result;
}
