import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { StoredWrite } from './order.js';

// `getDeltaChannelHistory` apart from how a back end reads ancestors, writes and values: both back ends walk
// from the target up its parents, stop per channel at a stored value or a cached history, and memoise alike.

export type DeltaChannelHistory = Awaited<ReturnType<BaseCheckpointSaver['getDeltaChannelHistory']>>[string];

type Write = DeltaChannelHistory['writes'][number];

interface Cached {
  seed?: unknown;
  hasSeed: boolean;
  writes: readonly Write[];
}

/**
 * Threads whose last computed history is kept (one entry each: the next turn's target descends from the last one). A
 * server holding more sessions than this in one store walks each session's history afresh at every turn; it was 16
 * entries of any thread, fewer than `serve-load.mjs`'s 20 concurrent sessions.
 */
const CACHE_MAX = 256;

/** One key per thread and namespace (a thread id that is not a string is compared as its text). */
function keyOf(threadId: unknown, ns: string): string {
  return `${ns}\u0000${String(threadId)}`;
}

/**
 * Per-process memo of computed histories, by checkpoint row. history(T) for a descendant T of
 * a cached X is history(X) + the writes stored on the path X..parent(T), so a load reads only
 * the checkpoints added since the previous load instead of everything since the last snapshot.
 */
export class HistoryCache {
  /** By thread key: the checkpoint row whose histories are kept, newest use last. */
  private readonly entries = new Map<string, { seq: number; histories: Map<string, Cached> }>();
  /** Row id → thread key, for lookups by checkpoint. */
  private readonly threads = new Map<number, string>();

  get(seq: number): Map<string, Cached> | undefined {
    const key = this.threads.get(seq);
    return key === undefined ? undefined : this.entries.get(key)?.histories;
  }

  /** Keeps `histories` as those of checkpoint `seq` of the thread, in place of the thread's earlier ones. */
  set(seq: number, histories: Map<string, Cached>, threadId: unknown, ns: string): void {
    const key = keyOf(threadId, ns);
    this.drop(key);
    this.entries.set(key, { seq, histories });
    this.threads.set(seq, key);
    if (this.entries.size > CACHE_MAX) this.drop(this.entries.keys().next().value!);
  }

  /**
   * New writes on checkpoint `seq` of a thread change the histories of its descendants: checkpoints of the same thread
   * created after it. Row ids count across threads, so another session's histories are kept.
   */
  invalidateAfter(seq: number, threadId: unknown, ns: string): void {
    const key = keyOf(threadId, ns);
    const entry = this.entries.get(key);
    if (entry && entry.seq > seq) this.drop(key);
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.threads.delete(entry.seq);
  }

  clear(): void {
    this.entries.clear();
    this.threads.clear();
  }
}

/** The answer without walking: none asked, no target, or every channel cached at the target. */
export function knownHistories(
  cache: HistoryCache,
  start: number | undefined,
  channels: string[],
): Record<string, DeltaChannelHistory> | undefined {
  if (channels.length === 0) return {};
  if (start === undefined) return toResult(channels.map((ch) => [ch, { hasSeed: false, writes: [] }]));
  const hit = cache.get(start);
  if (hit && channels.every((ch) => hit.has(ch))) return toResult(channels.map((ch) => [ch, hit.get(ch)!]));
  return undefined;
}

/**
 * One walk from a target checkpoint up its ancestors, nearest first. `S` is what a back end needs later to
 * decode a channel's stored value (its seed).
 */
export class HistoryWalk<S> {
  /** Per ancestor, the channels that still collect writes there. */
  readonly active = new Map<number, Set<string>>();
  /** The ancestors where a channel's walk stopped at a stored value. */
  readonly seeds: [seq: number, channel: string, seed: S][] = [];
  readonly #channels: string[];
  readonly #cache: HistoryCache;
  readonly #threadId: unknown;
  readonly #ns: string;
  readonly #remaining: Set<string>;
  readonly #fromCache = new Map<string, Cached>();
  readonly #collected: Map<string, Write[]>;
  #computed = new Map<string, Cached>();

  /** `threadId`, `ns`: the target's thread, which the cached result belongs to. */
  constructor(cache: HistoryCache, channels: string[], threadId: unknown, ns: string) {
    this.#cache = cache;
    this.#threadId = threadId;
    this.#ns = ns;
    this.#channels = channels;
    this.#remaining = new Set(channels);
    this.#collected = new Map(channels.map((ch) => [ch, []]));
  }

  /** Visits ancestor `seq`; `seedOf(ch)` is defined when it stores a value of `ch`. True: the walk is done. */
  step(seq: number, seedOf: (channel: string) => S | undefined): boolean {
    const remaining = this.#remaining;
    this.active.set(seq, new Set(remaining));
    for (const ch of [...remaining]) {
      const seed = seedOf(ch);
      if (seed !== undefined) {
        this.seeds.push([seq, ch, seed]);
        remaining.delete(ch);
      }
    }
    const cached = this.#cache.get(seq);
    if (cached) {
      for (const ch of [...remaining]) {
        const entry = cached.get(ch);
        if (entry) {
          this.#fromCache.set(ch, entry);
          remaining.delete(ch);
        }
      }
    }
    return remaining.size === 0;
  }

  /** Whether the write of `channel` at ancestor `seq` belongs to the history. */
  readonly keeps = (seq: number, channel: string): boolean => this.active.get(seq)?.has(channel) === true;

  /** The decoded writes of the visited ancestors (those `keeps` accepts). */
  collect(writes: (StoredWrite & { seq: number })[]): void {
    // Ancestors were collected nearest first; replay wants oldest first, each step in write order.
    const order = new Map([...this.active.keys()].reverse().map((seq, i) => [seq, i]));
    writes.sort((a, b) => order.get(a.seq)! - order.get(b.seq)!);
    for (const w of writes) this.#collected.get(w.channel)!.push([w.taskId, w.channel, w.value]);
  }

  /**
   * Joins cached histories with the collected writes; then `seed` adds the decoded seeds. A channel whose writes
   * hold an `Overwrite` (a compacted thread resets its messages so) starts from the last one: nothing before it
   * counts when LangGraph replays them, so neither its older writes nor its stored value are kept or decoded.
   */
  combine(): void {
    this.#computed = new Map();
    for (const ch of this.#channels) {
      const older = this.#fromCache.get(ch);
      const newer = this.#collected.get(ch)!;
      const joined: Cached = older
        ? { ...older, writes: older.writes.concat(newer) }
        : { hasSeed: false, writes: newer };
      const reset = joined.writes.findLastIndex((w) => isOverwrite(w[2]));
      this.#computed.set(ch, reset === -1 ? joined : { hasSeed: false, writes: joined.writes.slice(reset) });
    }
  }

  /** The stored values to decode: those of channels whose history does not start at an `Overwrite`. */
  seedsNeeded(): [seq: number, channel: string, seed: S][] {
    return this.seeds.filter(([, ch]) => !isOverwrite(this.#computed.get(ch)?.writes[0]?.[2]));
  }

  seed(channel: string, value: unknown): void {
    this.#computed.set(channel, { ...this.#computed.get(channel)!, seed: value, hasSeed: true });
  }

  /** Caches the histories of the target `start` and returns them. */
  finish(start: number): Record<string, DeltaChannelHistory> {
    this.#cache.set(start, this.#computed, this.#threadId, this.#ns);
    return toResult(this.#computed);
  }
}

/**
 * LangGraph's `Overwrite` as a write holds it, the class or its wire form (`{ __overwrite__: value }`): its replay
 * takes the last one as the channel's value.
 */
export function isOverwrite(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if ('__overwrite__' in value) return true;
  const typed = value as { type?: unknown; lg_name?: unknown };
  return (typed.type === '__overwrite__' && 'value' in value) || typed.lg_name === 'Overwrite';
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
