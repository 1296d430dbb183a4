import type { BaseMessage } from '@langchain/core/messages';
import type { AgentModels, ResolvedModel } from './agents.js';
import { compactHistory } from './compaction.js';
import { buildView, type ViewInput } from './compaction-view.js';
import type { AgentGraph } from './graph.js';
import { modelLimits } from './model-limits.js';
import { tokenEstimator } from './tokens.js';
import type { CompactionRecord, CompactionResult } from './types.js';

export interface CompactThreadInput {
  graph: AgentGraph;
  threadId: string;
  messages: readonly BaseMessage[];
  /** How many messages of the whole history come before `messages`. */
  offset: number;
  records: readonly CompactionRecord[];
  /** The model the thread's next call would use. */
  routed: ResolvedModel;
  models: AgentModels;
  contextWindow: number | undefined;
  describeSkill: ViewInput['describeSkill'];
  instructions?: string;
  signal?: AbortSignal;
}

/**
 * A compaction asked for by the application (`/compact`): all but the last exchange is summarised, and the record
 * is written to the thread's state as if the agent node had written it (no message changes, no next step) — unless
 * the conversation sent with the summary would not be smaller than without it (`applied: false`, nothing written).
 */
export async function compactThread(input: CompactThreadInput): Promise<CompactionResult | undefined> {
  const count = await tokenEstimator(input.routed.name);
  const { window, reserve } = modelLimits(input.routed.model, input.contextWindow);
  // The system prompt and tools are not known between turns; they rarely take more than a fifth of what is left.
  const budget = Math.floor((window - reserve) * 0.8);
  const tokensOf = (records: readonly CompactionRecord[]) =>
    buildView({
      messages: input.messages,
      record: records.at(-1),
      count,
      budget,
      threshold: undefined,
      cap: Number.MAX_SAFE_INTEGER,
      describeSkill: input.describeSkill,
    }).tokens;
  const summariser = await input.models.summariser(input.routed);
  const limits = modelLimits(summariser.model, input.contextWindow);
  const usage = { inputTokens: 0, outputTokens: 0, model: summariser.name };
  const done = await compactHistory({
    messages: input.messages,
    offset: input.offset,
    records: input.records,
    trigger: 'manual',
    ...(input.instructions ? { instructions: input.instructions } : {}),
    count,
    budget,
    maxRequestTokens: limits.window - limits.reserve,
    summariser,
    ...(input.signal ? { signal: input.signal } : {}),
    onUsage: (u) => {
      usage.inputTokens += u.inputTokens;
      usage.outputTokens += u.outputTokens;
    },
    // A failed summary call is a failed /compact: nothing is recorded, the user may try again.
    onFailure: (error) => {
      throw error;
    },
  });
  if (!done) return undefined;
  const tokensBefore = tokensOf(input.records);
  const record = { ...done.record, tokensBefore, tokensAfter: tokensOf([...input.records, done.record]) };
  // A summary as long as what it covers (a short conversation, a wordy summariser) would only cost from then on.
  const applied = record.tokensAfter < tokensBefore;
  if (applied)
    await input.graph.updateState(
      { configurable: { thread_id: input.threadId } },
      { compactions: [record] },
      'agent',
    );
  return { record, messages: done.added, tokensBefore, tokensAfter: record.tokensAfter, usage, applied };
}
