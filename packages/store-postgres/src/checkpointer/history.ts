import {
  type DeltaChannelHistory,
  decodeValue,
  decodeWrites,
  parseBody,
  type Ref,
} from '@birdie/store/backend';
import type { Queryable } from '../db.js';
import { type ReadContext, writesOf } from './read.js';

type Write = DeltaChannelHistory['writes'][number];

interface Cached {
  seed?: unknown;
  hasSeed: boolean;
  writes: readonly Write[];
}

/** Histories kept per target checkpoint: the next turn's target descends from the last one. */
const CACHE_MAX = 16;
/** Ancestors read per query; the walk usually stops after a few (a cached history or a snapshot). */
const PAGE = 64;

/**
 * Per-process memo of computed histories, by checkpoint row: history(T) for a descendant T of a cached X is
 * history(X) + the writes stored on the path X..parent(T), so a load reads only the checkpoints added since.
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

interface ChainRow {
  seq: number;
  /** Null for a parent referenced but never put. */
  body: Buffer | null;
}

/** Ancestors of checkpoint `from` (not itself), nearest first, one page at a time. */
async function* ancestors(q: Queryable, from: number): AsyncGenerator<ChainRow> {
  let start = from;
  for (;;) {
    const { rows } = await q.query<ChainRow>(
      `WITH RECURSIVE chain (seq, parent, body) AS (
         SELECT c.seq, c.parent_seq, c.body FROM cp_checkpoints c
           WHERE c.seq = (SELECT parent_seq FROM cp_checkpoints WHERE seq = $1)
         UNION ALL
         SELECT c.seq, c.parent_seq, c.body FROM chain JOIN cp_checkpoints c ON c.seq = chain.parent
       ) SELECT seq, body FROM chain LIMIT $2`,
      [start, PAGE],
    );
    yield* rows;
    if (rows.length < PAGE) return;
    start = rows.at(-1)!.seq;
  }
}

/**
 * `getDeltaChannelHistory` over SQL (the SQLite store's design): a recursive query yields the ancestors nearest
 * first, a page at a time, and reading stops as soon as every channel met a checkpoint that stores a value for it
 * (the keys of its body's values, a record of about a hundred bytes) or a checkpoint whose history is cached. One more query
 * fetches the writes of exactly those ancestors.
 */
export async function deltaHistory(
  ctx: ReadContext,
  cache: HistoryCache,
  start: number | undefined,
  channels: string[],
): Promise<Record<string, DeltaChannelHistory>> {
  if (channels.length === 0) return {};
  if (start === undefined) return toResult(channels.map((ch) => [ch, { hasSeed: false, writes: [] }]));

  const hit = cache.get(start);
  if (hit && channels.every((ch) => hit.has(ch))) return toResult(channels.map((ch) => [ch, hit.get(ch)!]));

  const remaining = new Set(channels);
  const active = new Map<number, Set<string>>();
  const seeds: [seq: number, channel: string, ref: Ref][] = [];
  const fromCache = new Map<string, Cached>();
  for await (const row of ancestors(ctx.q, start)) {
    if (row.body === null) break; // a parent referenced but never put: the walk ends there, as getTuple's would
    active.set(row.seq, new Set(remaining));
    const { vals } = parseBody(row.body, row.seq).body;
    for (const ch of [...remaining]) {
      if (Object.hasOwn(vals, ch)) {
        seeds.push([row.seq, ch, vals[ch]!]);
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
    const rows = await writesOf(ctx.q, [...active.keys()]);
    const writes = await decodeWrites(ctx, rows, (seq, ch) => active.get(seq)?.has(ch) === true);
    // Ancestors were collected nearest first; replay wants oldest first, each step in write order.
    const order = new Map([...active.keys()].reverse().map((seq, i) => [seq, i]));
    writes.sort((a, b) => order.get(a.seq)! - order.get(b.seq)!);
    for (const w of writes) collected.get(w.channel)!.push([w.taskId, w.channel, w.value]);
  }

  const computed = new Map<string, Cached>();
  for (const ch of channels) {
    const older = fromCache.get(ch);
    const newer = collected.get(ch)!;
    computed.set(
      ch,
      older ? { ...older, writes: older.writes.concat(newer) } : { hasSeed: false, writes: newer },
    );
  }
  for (const [seq, ch, ref] of seeds) {
    const seed = await decodeValue(ctx, ref, seq);
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
