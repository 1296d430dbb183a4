import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { mechanicalSummary, summarise } from './compaction-summary.js';
import { boundaryIndex, loadedSkillOf, splitPoint } from './compaction-view.js';
import type { TokenEstimator } from './tokens.js';
import type { CompactionRecord } from './types.js';

/** After a compaction the kept messages take at most this share of the budget (the summary adds at most 15 %). */
export const KEEP_SHARE = 0.35;
/** The summary's share of the budget, between 200 and 2,000 tokens. */
export const SUMMARY_SHARE = 0.15;

export const summaryBudget = (budget: number) =>
  Math.max(200, Math.min(2000, Math.floor(budget * SUMMARY_SHARE)));

export interface CompactInput {
  /** The whole (repaired) history, or what the thread keeps of it since its messages were last archived. */
  messages: readonly BaseMessage[];
  /** How many messages of the whole history come before `messages` (see `thread-archive.ts`). */
  offset?: number;
  records: readonly CompactionRecord[];
  /** `manual`: keep only the last exchange (if it fits); `auto`: as much of the end as fits `KEEP_SHARE`. */
  trigger: 'auto' | 'manual';
  instructions?: string;
  count: TokenEstimator;
  /** Tokens the conversation may take when sent. */
  budget: number;
  /** The largest request the summariser may be sent. */
  maxRequestTokens: number;
  summariser: { model: BaseChatModel; name: string };
  signal?: AbortSignal;
  onUsage?(usage: { inputTokens: number; outputTokens: number }, model: string): void;
  /** The summary call failed: the conversation goes on with a summary made without a model. */
  onFailure?(error: unknown): void;
}

export interface Compacted {
  record: CompactionRecord;
  /** Messages the new summary covers that the previous one did not. */
  added: number;
}

/**
 * Where a manual compaction splits: before the last exchange, which stays verbatim when it fits in `keepTokens`
 * (else the usual split point). `null` when the last exchange is the only one after `start`: nothing is old enough.
 */
function manualSplit(
  messages: readonly BaseMessage[],
  start: number,
  count: TokenEstimator,
  keepTokens: number,
): number | null | undefined {
  const last = messages.findLastIndex((m) => HumanMessage.isInstance(m));
  if (last <= start) return null;
  let tokens = 0;
  for (let i = last; i < messages.length; i += 1) tokens += count.message(messages[i] as BaseMessage);
  return tokens <= keepTokens ? last : splitPoint(messages, start, count, keepTokens);
}

/**
 * Summarises the part of the history between the latest summary's boundary and the kept end (never splitting a tool
 * call from its result) into a new record. The record's `tokensAfter` is left for the caller, who builds the view.
 * Undefined when there is nothing old enough to summarise.
 */
export async function compactHistory(input: CompactInput): Promise<Compacted | undefined> {
  const { messages, count } = input;
  const previous = input.records.at(-1);
  const start = boundaryIndex(messages, previous) + 1;
  const keepTokens = Math.floor(input.budget * KEEP_SHARE);
  const split =
    input.trigger === 'manual'
      ? manualSplit(messages, start, count, keepTokens)
      : splitPoint(messages, start, count, keepTokens);
  if (split === undefined || split === null || split <= start) return undefined;
  const older = messages.slice(start, split);
  const skills = new Set(previous?.skills ?? []);
  for (const m of older) {
    const name = loadedSkillOf(m);
    if (name !== undefined) skills.add(name);
  }
  const maxSummaryTokens = summaryBudget(input.budget);
  let summary: string;
  let model = input.summariser.name;
  try {
    summary = await summarise({
      model: input.summariser.model,
      messages: older,
      ...(previous ? { previous: previous.summary } : {}),
      ...(input.instructions ? { instructions: input.instructions } : {}),
      count,
      maxRequestTokens: input.maxRequestTokens,
      maxSummaryTokens,
      ...(input.signal ? { signal: input.signal } : {}),
      onUsage: (usage) => input.onUsage?.(usage, input.summariser.name),
    });
  } catch (error) {
    if (input.signal?.aborted) throw error;
    input.onFailure?.(error);
    summary = mechanicalSummary(previous?.summary, older, count, maxSummaryTokens);
    model = 'none';
  }
  const last = messages[split - 1] as BaseMessage;
  return {
    added: split - start,
    record: {
      upTo: last.id ?? '',
      messages: (input.offset ?? 0) + split,
      summary,
      skills: [...skills],
      trigger: input.trigger,
      ...(input.instructions?.trim() ? { instructions: input.instructions.trim() } : {}),
      tokensBefore: 0,
      tokensAfter: 0,
      model,
      at: new Date().toISOString(),
    },
  };
}
