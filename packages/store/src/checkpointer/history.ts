import type { RunnableConfig } from '@langchain/core/runnables';
import { type DeltaChannelHistory, type HistoryCache, HistoryWalk, knownHistories } from './history-walk.js';
import { parseBody } from './read.js';
import type { CheckpointRow, Rows } from './rows.js';
import { decodeValue, decodeWrites, type TupleSource } from './tuple.js';

/** What the history walk reads of the checkpointer (the saver passes itself). */
export interface HistorySource {
  readonly rows: Pick<Rows, 'chain' | 'writesIn' | 'bodyOf'>;
  readonly source: TupleSource<CheckpointRow>;
  /** The row id of the checkpoint `config` names (its thread's latest when it names none). */
  targetSeq(config: RunnableConfig): number | undefined;
}

/**
 * `getDeltaChannelHistory` over SQL: one recursive query yields the ancestors nearest first,
 * and reading stops as soon as every channel met a checkpoint that stores a value for it (the
 * `chans` column says so without inflating the body) or a checkpoint whose history is cached.
 * One more query fetches the writes of exactly those ancestors.
 */
export async function deltaHistory(
  saver: HistorySource,
  cache: HistoryCache,
  config: RunnableConfig,
  channels: string[],
): Promise<Record<string, DeltaChannelHistory>> {
  if (channels.length === 0) return {};
  const start = saver.targetSeq(config);
  const known = knownHistories(cache, start, channels);
  if (known || start === undefined) return known ?? {};

  // Walk: for each ancestor, which channels still collect writes there, and which stop there.
  const walk = new HistoryWalk<true>(
    cache,
    channels,
    config.configurable?.thread_id,
    (config.configurable?.checkpoint_ns as string | undefined) ?? '',
  );
  for (const row of saver.rows.chain.iterate(start)) {
    if (!row.stored) break; // a parent referenced but never put: the walk ends there, as getTuple's would
    if (walk.step(row.seq, (ch) => (row.chans?.includes(`\n${ch}\n`) ? true : undefined))) break;
  }

  if (walk.active.size > 0) {
    const rows = saver.rows.writesIn.all(JSON.stringify([...walk.active.keys()]));
    walk.collect(await decodeWrites(saver.source, rows, walk.keeps));
  }
  walk.combine();
  for (const [seq, ch] of walk.seedsNeeded()) {
    const { body } = parseBody(saver.rows.bodyOf.get(seq)!.body, seq);
    walk.seed(ch, await decodeValue(saver.source, body.vals[ch]!, seq));
  }
  return walk.finish(start);
}
