import type { RunnableConfig } from '@langchain/core/runnables';
import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph';
import type { Db } from '../db.js';
import { matches, target } from './config.js';
import { DamageError } from './damage.js';
import { type CheckpointRow, SELECT_CHECKPOINT } from './rows.js';
import { type TupleSource, toTuple } from './tuple.js';

type ListOptions = NonNullable<Parameters<BaseCheckpointSaver['list']>[1]>;

/**
 * `list` over SQL, newest first. A checkpoint whose records fail their checksum or do not decode is
 * left out (so a LIMIT may yield fewer); the ones around it still list, and `getTuple` names the damage.
 */
export async function* listTuples(
  source: TupleSource,
  db: Db,
  config: RunnableConfig,
  options: ListOptions,
): AsyncGenerator<CheckpointTuple> {
  const { threadId, checkpointId } = target(config);
  const ns = config.configurable?.checkpoint_ns as string | undefined;
  const where = ['c.body IS NOT NULL'];
  const params: unknown[] = [];
  if (threadId !== undefined) where.push('t.thread_id = ?') && params.push(threadId);
  if (ns !== undefined) where.push('t.ns = ?') && params.push(ns);
  if (checkpointId) where.push('c.checkpoint_id = ?') && params.push(checkpointId);
  const before = options.before?.configurable?.checkpoint_id as string | undefined;
  if (before) where.push('c.checkpoint_id < ?') && params.push(before);
  const filter = options.filter && Object.keys(options.filter).length > 0 ? options.filter : undefined;
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  const sqlLimit = filter === undefined && Number.isFinite(remaining) ? ' LIMIT ?' : '';
  if (sqlLimit) params.push(Math.max(0, Math.floor(remaining)));
  const rows = db
    .prepare<unknown[], CheckpointRow>(
      `${SELECT_CHECKPOINT} WHERE ${where.join(' AND ')} ORDER BY c.checkpoint_id DESC${sqlLimit}`,
    )
    .all(...params);
  for (const row of rows) {
    if (remaining <= 0) return;
    let tuple: CheckpointTuple;
    try {
      tuple = await toTuple(source, row);
    } catch (error) {
      if (error instanceof DamageError) continue;
      throw error;
    }
    if (filter && !matches(tuple.metadata, filter)) continue;
    remaining -= 1;
    yield tuple;
  }
}
