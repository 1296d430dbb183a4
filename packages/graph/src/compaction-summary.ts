import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import { LOAD_SKILL } from './builtin-names.js';
import { loadedSkillOf } from './compaction-view.js';
import type { TokenEstimator } from './tokens.js';

/** The first line of every summary request's user message (a scripted model can `match` it). */
export const SUMMARY_HEADER = 'Conversation to summarise:';

/** How much of each message a summary request quotes. */
const QUOTE = Object.freeze({ text: 4000, args: 500, result: 1000 });

export function summaryInstructions(words: number): string {
  return [
    'You compact a conversation between a user and an AI assistant so that the assistant can go on without the original messages.',
    "Write a summary that keeps what the assistant needs: the user's goals and requests, decisions and conclusions, facts, names, numbers, file paths and commands, tool results that still matter, what was done and what is still open.",
    'When a previous summary is given, fold it in: the result replaces it.',
    `Use short plain sentences or bullet points, at most ${words} words. Add nothing that is not in the conversation. Answer with the summary only.`,
  ].join('\n');
}

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max)} […${text.length - max} more characters]` : text;

/** The part to summarise as plain lines (a model that cannot take tool messages without their calls reads it too). */
export function transcriptLines(messages: readonly BaseMessage[]): string[] {
  const lines: string[] = [];
  for (const m of messages) {
    if (HumanMessage.isInstance(m)) lines.push(`[user] ${clip(m.text, QUOTE.text)}`);
    else if (AIMessage.isInstance(m)) {
      if (m.text.trim()) lines.push(`[assistant] ${clip(m.text, QUOTE.text)}`);
      for (const call of m.tool_calls ?? [])
        lines.push(`[assistant called ${call.name}] ${clip(JSON.stringify(call.args ?? {}), QUOTE.args)}`);
    } else if (ToolMessage.isInstance(m)) {
      const skill = loadedSkillOf(m);
      const name = m.name ?? 'tool';
      if (skill !== undefined)
        lines.push(`[${LOAD_SKILL} result] the instructions of skill "${skill}" were loaded`);
      else {
        const text = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
        lines.push(`[${name} ${m.status === 'error' ? 'failed' : 'result'}] ${clip(text, QUOTE.result)}`);
      }
    }
  }
  return lines;
}

/** The messages of one summary request: the instructions, then the previous summary and the transcript. */
export function summaryRequest(
  lines: readonly string[],
  options: { previous?: string; instructions?: string; words: number },
): BaseMessage[] {
  const parts = [SUMMARY_HEADER];
  if (options.previous) parts.push(`<previous-summary>\n${options.previous.trim()}\n</previous-summary>`);
  parts.push(`<conversation>\n${lines.join('\n')}\n</conversation>`);
  if (options.instructions?.trim())
    parts.push(`What the user wants this summary to keep or focus on: ${options.instructions.trim()}`);
  return [new SystemMessage(summaryInstructions(options.words)), new HumanMessage(parts.join('\n\n'))];
}

export interface SummariseInput {
  model: BaseChatModel;
  /** The part of the history the summary replaces (after the previous summary's boundary). */
  messages: readonly BaseMessage[];
  previous?: string;
  instructions?: string;
  count: TokenEstimator;
  /** The largest request the model may be sent (its window minus room for the answer). */
  maxRequestTokens: number;
  /** The summary's own budget. */
  maxSummaryTokens: number;
  signal?: AbortSignal;
  /** Each summary call's token usage. */
  onUsage?(usage: { inputTokens: number; outputTokens: number }): void;
}

/** Groups lines into chunks of at most `max` tokens (a longer line is cut to fit). */
function chunks(lines: readonly string[], count: TokenEstimator, max: number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const raw of lines) {
    let line = raw;
    let n = count.text(line) + 1;
    if (n > max) {
      line = clip(line, Math.max(200, Math.floor((line.length * max) / n) - 60));
      n = count.text(line) + 1;
    }
    if (size + n > max && current.length) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(line);
    size += n;
  }
  if (current.length) out.push(current);
  return out;
}

/** Cuts a summary that came out longer than its budget. */
export function capSummary(text: string, count: TokenEstimator, maxTokens: number): string {
  const trimmed = text.trim();
  const n = count.text(trimmed);
  if (n <= maxTokens) return trimmed;
  return `${trimmed.slice(0, Math.floor((trimmed.length * maxTokens) / n) - 2)} …`;
}

/**
 * Summarises the part with the model, folding it chunk by chunk when its transcript would not fit in one request
 * (each request, instructions and previous summary included, stays within `maxRequestTokens`).
 */
export async function summarise(input: SummariseInput): Promise<string> {
  const { count } = input;
  const words = Math.max(60, Math.floor(input.maxSummaryTokens * 0.6));
  const fixed =
    count.messages(summaryRequest([], { words, instructions: input.instructions ?? '' })) +
    input.maxSummaryTokens +
    64;
  const room = Math.max(200, input.maxRequestTokens - fixed);
  let summary = input.previous;
  for (const lines of chunks(transcriptLines(input.messages), count, room)) {
    const request = summaryRequest(lines, {
      words,
      ...(summary ? { previous: summary } : {}),
      ...(input.instructions ? { instructions: input.instructions } : {}),
    });
    const reply = await input.model.invoke(request, input.signal ? { signal: input.signal } : {});
    const usage = (reply as AIMessage).usage_metadata;
    if (usage) input.onUsage?.({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
    const text = reply.text.trim();
    if (!text) throw new Error('the model answered the summary request with no text');
    summary = capSummary(text, count, input.maxSummaryTokens);
  }
  return summary ?? '';
}

/**
 * A summary made without a model, when the summary call failed: the previous summary and the user's requests, one
 * line each. Poorer than a model's, but the conversation goes on within its budget.
 */
export function mechanicalSummary(
  previous: string | undefined,
  messages: readonly BaseMessage[],
  count: TokenEstimator,
  maxTokens: number,
): string {
  const requests = messages
    .filter((m): m is HumanMessage => HumanMessage.isInstance(m))
    .map((m) => `- ${clip(m.text.replace(/\s+/g, ' ').trim(), 200)}`);
  const text = [
    ...(previous ? [previous.trim()] : []),
    `(No summary could be made of the next part; the user's requests in it were:)\n${requests.join('\n') || '- (none)'}`,
  ].join('\n\n');
  return capSummary(text, count, maxTokens);
}
