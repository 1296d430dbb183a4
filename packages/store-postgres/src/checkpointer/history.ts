import {
  type DeltaChannelHistory,
  decodeValue,
  decodeWrites,
  type HistoryCache,
  HistoryWalk,
  knownHistories,
  parseBody,
  type Ref,
} from '@birdie/store/backend';
import type { Queryable } from '../db.js';
import { type ReadContext, writesOf } from './read.js';

/** Ancestors read per query; the walk usually stops after a few (a cached history or a snapshot). */
const PAGE = 64;

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
  threadId: unknown,
  ns: string,
): Promise<Record<string, DeltaChannelHistory>> {
  const known = knownHistories(cache, start, channels);
  if (known || start === undefined) return known ?? {};

  const walk = new HistoryWalk<Ref>(cache, channels, threadId, ns);
  for await (const row of ancestors(ctx.q, start)) {
    if (row.body === null) break; // a parent referenced but never put: the walk ends there, as getTuple's would
    // No `chans` column here: the body's value keys say which channels it stores.
    const { vals } = parseBody(row.body, row.seq).body;
    if (walk.step(row.seq, (ch) => (Object.hasOwn(vals, ch) ? vals[ch] : undefined))) break;
  }

  if (walk.active.size > 0) {
    const rows = await writesOf(ctx.q, [...walk.active.keys()]);
    walk.collect(await decodeWrites(ctx, rows, walk.keeps));
  }
  walk.combine();
  for (const [seq, ch, ref] of walk.seedsNeeded()) walk.seed(ch, await decodeValue(ctx, ref, seq));
  return walk.finish(start);
}
