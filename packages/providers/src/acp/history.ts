import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';

/** Where the inner session's id is kept: the reply's `response_metadata`, so the thread's checkpoints carry it. */
export const SESSION_KEY = 'acp_session_id';

const LINE_CHARS = 300;
const SUMMARY_CHARS = 2_000;

/**
 * The new user text of this turn: the human messages after the last reply (the inner agent already has everything
 * before it in its own session). A window without a reply gives its last human message.
 */
export function newUserText(messages: readonly BaseMessage[]): string {
  const lastReply = findLastIndex(messages, (m) => AIMessage.isInstance(m));
  const after = messages.slice(lastReply + 1).filter((m) => HumanMessage.isInstance(m));
  if (after.length > 0) return after.map((m) => m.text).join('\n\n');
  const last = messages.findLast((m) => HumanMessage.isInstance(m));
  return last?.text ?? '';
}

/** The inner session of the thread's latest reply, if one recorded it. */
export function recordedSession(messages: readonly BaseMessage[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (!AIMessage.isInstance(m)) continue;
    const id = m.response_metadata?.[SESSION_KEY];
    if (typeof id === 'string' && id) return id;
  }
  return undefined;
}

/**
 * A short account of the conversation before this turn, for an agent that starts a new session on a thread that
 * already has history (it could not load the old one): the latest exchanges, one clipped line each, within
 * 2,000 characters. Empty when there is nothing before the new text.
 */
export function historySummary(messages: readonly BaseMessage[]): string {
  const lastReply = findLastIndex(messages, (m) => AIMessage.isInstance(m));
  const lines: string[] = [];
  for (const m of messages.slice(0, lastReply + 1)) {
    const text = clip(m.text);
    if (HumanMessage.isInstance(m)) lines.push(`User: ${text}`);
    else if (AIMessage.isInstance(m)) {
      const calls = (m.tool_calls ?? []).map((c) => c.name).join(', ');
      if (text) lines.push(`Assistant: ${text}`);
      if (calls) lines.push(`Assistant called: ${calls}`);
    } else if (ToolMessage.isInstance(m)) lines.push(`Tool ${m.name ?? ''}: ${text}`.replace('  ', ' '));
  }
  const kept: string[] = [];
  let size = 0;
  for (const line of lines.reverse()) {
    if (size + line.length + 1 > SUMMARY_CHARS) break;
    kept.unshift(line);
    size += line.length + 1;
  }
  return kept.join('\n');
}

/** The prompt of a fresh session on a thread with history: the summary, then the new text. */
export function withSummary(summary: string, text: string): string {
  if (!summary) return text;
  return `Earlier in this conversation (a summary; you cannot see the rest):\n${summary}\n\nThe user now says:\n${text}`;
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > LINE_CHARS ? `${flat.slice(0, LINE_CHARS - 1)}…` : flat;
}

function findLastIndex<T>(items: readonly T[], pick: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i -= 1) if (pick(items[i] as T)) return i;
  return -1;
}
