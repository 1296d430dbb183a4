import type { RunnableConfig } from '@langchain/core/runnables';
import type { CheckpointTuple } from '@langchain/langgraph';
import type { Db } from '../db.js';
import { type ListOptions, listedTuples, listPlan } from './list-plan.js';
import { type CheckpointRow, SELECT_CHECKPOINT } from './rows.js';
import type { TupleSource } from './tuple.js';

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
  const plan = listPlan(config, options);
  const where = ['c.body IS NOT NULL'];
  const params: unknown[] = [];
  if (plan.threadId !== undefined) where.push('t.thread_id = ?') && params.push(plan.threadId);
  if (plan.ns !== undefined) where.push('t.ns = ?') && params.push(plan.ns);
  if (plan.checkpointId) where.push('c.checkpoint_id = ?') && params.push(plan.checkpointId);
  if (plan.before) where.push('c.checkpoint_id < ?') && params.push(plan.before);
  const sqlLimit = plan.sqlLimit === undefined ? '' : ' LIMIT ?';
  if (plan.sqlLimit !== undefined) params.push(plan.sqlLimit);
  const rows = db
    .prepare<unknown[], CheckpointRow>(
      `${SELECT_CHECKPOINT} WHERE ${where.join(' AND ')} ORDER BY c.checkpoint_id DESC${sqlLimit}`,
    )
    .all(...params);
  yield* listedTuples(source, rows, plan);
}
