import type { ToolDefinition } from '@langchain/core/language_models/base';
import type { BaseMessage } from '@langchain/core/messages';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import type { AgentModels, ResolvedModel } from './agents.js';
import { compactHistory } from './compaction.js';
import { buildView, fitView, type ViewInput } from './compaction-view.js';
import { modelLimits } from './model-limits.js';
import type { AgentStateValue } from './state.js';
import { liveOffset } from './thread-archive.js';
import { MESSAGE_OVERHEAD_TOKENS, type TokenEstimator, tokenEstimator } from './tokens.js';
import { emit } from './turn-context.js';
import type { CompactionRecord } from './types.js';

/** How much of the conversation a call may send (part of the agent node's settings). */
export interface ContextSettings {
  /** Safety cap on the messages sent per call. */
  contextMessages: number;
  /** Input limit for every model, instead of its profile's. */
  contextWindow?: number;
  /** Share of the budget above which the conversation is compacted; undefined: never. */
  threshold: number | undefined;
}

/** The budget of one call: the model's window minus the system prompt, the tool definitions and room for the answer. */
export interface CallBudget {
  count: TokenEstimator;
  window: number;
  reserve: number;
  /** Tokens of the system prompt and the tool definitions. */
  fixed: number;
  /** Tokens the conversation may take. */
  budget: number;
}

export async function callBudget(
  routed: ResolvedModel,
  system: string,
  definitions: readonly ToolDefinition[],
  contextWindow: number | undefined,
): Promise<CallBudget> {
  const count = await tokenEstimator(routed.name);
  const { window, reserve } = modelLimits(routed.model, contextWindow);
  const fixed = count.text(system) + MESSAGE_OVERHEAD_TOKENS + count.tools(definitions);
  // A prompt that leaves almost nothing is still given a tenth of the window: the call may fail, but visibly.
  const budget = Math.max(window - reserve - fixed, Math.floor(window / 10));
  return { count, window, reserve, fixed, budget };
}

export interface FitInput {
  state: AgentStateValue;
  /** The repaired history. */
  messages: readonly BaseMessage[];
  routed: ResolvedModel;
  models: AgentModels;
  system: string;
  definitions: readonly ToolDefinition[];
  settings: ContextSettings;
  config: LangGraphRunnableConfig;
  describeSkill: ViewInput['describeSkill'];
}

/**
 * What a model call sends: the view of the history under the budget, compacting it first when it is over the
 * threshold (the new record is returned for the state, and a `compaction` event emitted).
 */
export async function fitContext(input: FitInput): Promise<{
  messages: BaseMessage[];
  /** Estimated tokens of the whole request (system prompt and tools included). */
  tokens: number;
  window: number;
  compacted?: CompactionRecord;
}> {
  const { settings, config, routed } = input;
  const b = await callBudget(routed, input.system, input.definitions, settings.contextWindow);
  const viewOf = (records: readonly CompactionRecord[]) =>
    buildView({
      messages: input.messages,
      record: records.at(-1),
      count: b.count,
      budget: b.budget,
      threshold: settings.threshold,
      cap: settings.contextMessages,
      describeSkill: input.describeSkill,
    });
  const records = input.state.compactions ?? [];
  let view = viewOf(records);
  let compacted: CompactionRecord | undefined;
  if (view.over) {
    const summariser = await input.models.summariser(routed);
    const limits = modelLimits(summariser.model, settings.contextWindow);
    const done = await compactHistory({
      messages: input.messages,
      offset: liveOffset(input.state),
      records,
      trigger: 'auto',
      count: b.count,
      budget: b.budget,
      maxRequestTokens: limits.window - limits.reserve,
      summariser,
      ...(config.signal ? { signal: config.signal } : {}),
      onUsage: (usage, model) => emit(config, { type: 'usage', ...usage, model }),
      onFailure: (error) =>
        emit(config, {
          type: 'error',
          error: {
            code: 'compaction-failed',
            message: `The summary call failed (${error instanceof Error ? error.message : String(error)}); the older messages are sent as a list of the user's requests instead.`,
          },
        }),
    });
    if (done) {
      const before = view.tokens;
      view = viewOf([...records, done.record]);
      compacted = { ...done.record, tokensBefore: before, tokensAfter: view.tokens };
      emit(config, {
        type: 'compaction',
        trigger: 'auto',
        messages: done.added,
        tokensBefore: before,
        tokensAfter: view.tokens,
        window: b.window,
        model: compacted.model,
        summary: compacted.summary,
      });
    }
  }
  const messages = fitView(view.messages, b.budget, settings.contextMessages, b.count, input.describeSkill);
  return {
    messages,
    tokens: b.fixed + b.count.messages(messages),
    window: b.window,
    ...(compacted ? { compacted } : {}),
  };
}
