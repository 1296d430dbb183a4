import { DamageError, matches, target, toTuple } from '@birdie/store/backend';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph';
import { type CheckpointRow, type ReadContext, SELECT_CHECKPOINT } from './read.js';

type ListOptions = NonNullable<Parameters<BaseCheckpointSaver['list']>[1]>;

/**
 * `list` over SQL, newest first. A checkpoint whose records fail their checksum or do not decode is left out (so a
 * LIMIT may yield fewer); the ones around it still list, and `getTuple` names the damage.
 */
export async function* listTuples(
  ctx: ReadContext,
  config: RunnableConfig,
  options: ListOptions,
): AsyncGenerator<CheckpointTuple> {
  const { threadId, checkpointId } = target(config);
  const ns = config.configurable?.checkpoint_ns as string | undefined;
  const where = ['c.body IS NOT NULL'];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (threadId !== undefined) add('t.thread_id = ?', threadId);
  if (ns !== undefined) add('t.ns = ?', ns);
  if (checkpointId) add('c.checkpoint_id = cp_key(?)', checkpointId);
  const before = options.before?.configurable?.checkpoint_id as string | undefined;
  if (before) add('c.checkpoint_id < cp_key(?)', before);
  const filter = options.filter && Object.keys(options.filter).length > 0 ? options.filter : undefined;
  let remaining = options.limit ?? Number.POSITIVE_INFINITY;
  let sqlLimit = '';
  if (filter === undefined && Number.isFinite(remaining)) {
    params.push(Math.max(0, Math.floor(remaining)));
    sqlLimit = ` LIMIT $${params.length}`;
  }
  const { rows } = await ctx.q.query<CheckpointRow>(
    `${SELECT_CHECKPOINT} WHERE ${where.join(' AND ')} ORDER BY c.checkpoint_id DESC${sqlLimit}`,
    params,
  );
  for (const row of rows) {
    if (remaining <= 0) return;
    let tuple: CheckpointTuple;
    try {
      tuple = await toTuple(ctx, row);
    } catch (error) {
      if (error instanceof DamageError) continue;
      throw error;
    }
    if (filter && !matches(tuple.metadata, filter)) continue;
    remaining -= 1;
    yield tuple;
  }
}
