import type { RunnableConfig } from '@langchain/core/runnables';
import type { BirdieCheckpointer, DeltaChannelHistory } from './saver.js';
import { parseBody } from './saver.js';

type Writes = DeltaChannelHistory['writes'];

/**
 * `getDeltaChannelHistory` over SQL: one recursive query yields the ancestors nearest first
 * and we stop reading as soon as every channel met a checkpoint that stores a value for it
 * (the `chans` column says so without inflating the body); then one query fetches the writes
 * of exactly those ancestors. Blobs come from the decoded-value cache, so replaying a long
 * thread decodes only what is new since the previous load.
 */
export async function deltaHistory(
  saver: BirdieCheckpointer,
  config: RunnableConfig,
  channels: string[],
): Promise<Record<string, DeltaChannelHistory>> {
  const result: Record<string, DeltaChannelHistory> = {};
  if (channels.length === 0) return result;
  for (const ch of channels) result[ch] = { writes: [] };
  const start = saver.targetSeq(config);
  if (start === undefined) return result;

  // Walk: for each ancestor, which channels still collect writes there, and which stop there.
  const remaining = new Set(channels);
  const active = new Map<number, Set<string>>();
  const seeds: [seq: number, channel: string][] = [];
  for (const row of saver.rows.chain.iterate(start)) {
    if (!row.stored) break; // a parent that was referenced but never put: the walk ends, as getTuple would
    active.set(row.seq, new Set(remaining));
    for (const ch of [...remaining]) {
      if (row.chans?.includes(`\n${ch}\n`)) {
        seeds.push([row.seq, ch]);
        remaining.delete(ch);
      }
    }
    if (remaining.size === 0) break;
  }
  if (active.size === 0) return result;

  const rows = saver.rows.writesIn.all(JSON.stringify([...active.keys()]));
  const writes = await saver.decodeWrites(rows, (seq, ch) => active.get(seq)?.has(ch) === true);
  // Ancestors were collected nearest first; replay wants oldest first, each step in write order.
  const order = new Map([...active.keys()].reverse().map((seq, i) => [seq, i]));
  writes.sort((a, b) => order.get(a.seq)! - order.get(b.seq)!);
  for (const w of writes) (result[w.channel]!.writes as Writes).push([w.taskId, w.channel, w.value]);

  for (const [seq, ch] of seeds) {
    const { body } = parseBody(saver.rows.bodyOf.get(seq)!.body);
    result[ch]!.seed = await saver.decodeValue(body.vals[ch]!);
  }
  return result;
}
