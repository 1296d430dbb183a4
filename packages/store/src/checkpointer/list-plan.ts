import type { RunnableConfig } from '@langchain/core/runnables';
import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph';
import { matches, target } from './config.js';
import { DamageError } from './damage.js';
import { type TupleRow, type TupleSource, toTuple } from './tuple.js';

// `list` apart from its SQL: what a call asks for, and which of the rows read it yields. Both back ends build
// their own query from a `ListPlan`.

export type ListOptions = NonNullable<Parameters<BaseCheckpointSaver['list']>[1]>;

/** What a `list` call selects, newest first. */
export interface ListPlan {
  threadId: string | undefined;
  /** Only this namespace (any when undefined). */
  ns: string | undefined;
  checkpointId: string | undefined;
  /** Only checkpoints older than this one. */
  before: string | undefined;
  /** Metadata filter, applied after decoding (so the query cannot LIMIT). */
  filter: Record<string, unknown> | undefined;
  /** How many tuples at most. */
  limit: number;
  /** The LIMIT the query may use: none with a filter or without a finite limit. */
  sqlLimit: number | undefined;
}

export function listPlan(config: RunnableConfig, options: ListOptions): ListPlan {
  const { threadId, checkpointId } = target(config);
  const filter = options.filter && Object.keys(options.filter).length > 0 ? options.filter : undefined;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  return {
    threadId,
    ns: config.configurable?.checkpoint_ns as string | undefined,
    checkpointId,
    before: options.before?.configurable?.checkpoint_id as string | undefined,
    filter,
    limit,
    sqlLimit: filter === undefined && Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : undefined,
  };
}

/**
 * The rows as tuples, up to the plan's limit. A checkpoint whose records fail their checksum or do not decode is
 * left out (so a LIMIT may yield fewer); the ones around it still list, and `getTuple` names the damage.
 */
export async function* listedTuples<R extends TupleRow>(
  source: TupleSource<R>,
  rows: Iterable<R>,
  plan: ListPlan,
): AsyncGenerator<CheckpointTuple> {
  let remaining = plan.limit;
  for (const row of rows) {
    if (remaining <= 0) return;
    let tuple: CheckpointTuple;
    try {
      tuple = await toTuple(source, row);
    } catch (error) {
      if (error instanceof DamageError) continue;
      throw error;
    }
    if (plan.filter && !matches(tuple.metadata, plan.filter)) continue;
    remaining -= 1;
    yield tuple;
  }
}
