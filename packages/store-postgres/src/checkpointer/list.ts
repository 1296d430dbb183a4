import { type ListOptions, listedTuples, listPlan } from '@birdie/store/backend';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { CheckpointTuple } from '@langchain/langgraph';
import { type CheckpointRow, type ReadContext, SELECT_CHECKPOINT } from './read.js';

/**
 * `list` over SQL, newest first. A checkpoint whose records fail their checksum or do not decode is left out (so a
 * LIMIT may yield fewer); the ones around it still list, and `getTuple` names the damage.
 */
export async function* listTuples(
  ctx: ReadContext,
  config: RunnableConfig,
  options: ListOptions,
): AsyncGenerator<CheckpointTuple> {
  const plan = listPlan(config, options);
  const where = ['c.body IS NOT NULL'];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (plan.threadId !== undefined) add('t.thread_id = ?', plan.threadId);
  if (plan.ns !== undefined) add('t.ns = ?', plan.ns);
  // Checkpoint ids are stored as `cp_key(id)` bytes (migration 5).
  if (plan.checkpointId) add('c.checkpoint_id = cp_key(?)', plan.checkpointId);
  if (plan.before) add('c.checkpoint_id < cp_key(?)', plan.before);
  let sqlLimit = '';
  if (plan.sqlLimit !== undefined) {
    params.push(plan.sqlLimit);
    sqlLimit = ` LIMIT $${params.length}`;
  }
  const { rows } = await ctx.q.query<CheckpointRow>(
    `${SELECT_CHECKPOINT} WHERE ${where.join(' AND ')} ORDER BY c.checkpoint_id DESC${sqlLimit}`,
    params,
  );
  yield* listedTuples(ctx, rows, plan);
}
