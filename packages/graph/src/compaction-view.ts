import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { LOAD_SKILL } from './builtin-names.js';
import { contextWindow } from './context-window.js';
import type { TokenEstimator } from './tokens.js';
import type { CompactionRecord } from './types.js';

/** How old tool results are trimmed once the conversation is over its threshold. */
export const TRIM = Object.freeze({
  /** The last exchanges (a user message and all that follows it) are never trimmed. */
  keepExchanges: 2,
  /** Older tool results longer than this many characters are cut … */
  largeChars: 1000,
  /** … to their first this many. */
  keepChars: 500,
});

export interface ViewInput {
  /** The whole (repaired) history. */
  messages: readonly BaseMessage[];
  /** The latest compaction of the thread. */
  record: CompactionRecord | undefined;
  count: TokenEstimator;
  /** Tokens the messages may take: the context window minus the system prompt, tools and room for the answer. */
  budget: number;
  /** Fraction of `budget` above which the view is trimmed, then a summary is due; undefined: never compact. */
  threshold: number | undefined;
  /** Safety cap on the number of messages sent. */
  cap: number;
  /** A skill's one-line description, for breadcrumbs. */
  describeSkill(name: string): string | undefined;
}

export interface ContextView {
  /** What is sent after the system prompt. */
  messages: BaseMessage[];
  tokens: number;
  /** Index in the history of the first message not covered by the summary. */
  start: number;
  /** Old tool results cut and skill bodies turned into breadcrumbs in this view. */
  trimmed: number;
  /** Still above the threshold (or the cap) after trimming: the older part should be summarised. */
  over: boolean;
}

/** Where the record's summary ends in this history: the index of its last message (-1 without a record). */
export function boundaryIndex(
  messages: readonly BaseMessage[],
  record: CompactionRecord | undefined,
): number {
  if (!record) return -1;
  for (let i = messages.length - 1; i >= 0; i -= 1) if (messages[i]?.id === record.upTo) return i;
  return Math.min(record.messages, messages.length) - 1;
}

/** Index of the first message of the last `n` exchanges (each starts with a user message) at or after `from`. */
export function exchangesStart(messages: readonly BaseMessage[], from: number, n: number): number {
  let found = 0;
  for (let i = messages.length - 1; i >= from; i -= 1) {
    if (HumanMessage.isInstance(messages[i]) && ++found === n) return i;
  }
  return from;
}

const SKILL_BLOCK = /^<skill name="([^"]+)">/;

/** The skill a `load_skill` result holds the body of, or undefined. */
export function loadedSkillOf(message: BaseMessage): string | undefined {
  if (!ToolMessage.isInstance(message) || message.name !== LOAD_SKILL || typeof message.content !== 'string')
    return undefined;
  return SKILL_BLOCK.exec(message.content)?.[1];
}

const trimmedCopies = new WeakMap<BaseMessage, BaseMessage>();

/** A large old tool result cut short, or a loaded skill body as a breadcrumb; the message itself otherwise. */
function trimmed(message: BaseMessage, describeSkill: ViewInput['describeSkill']): BaseMessage {
  if (!ToolMessage.isInstance(message)) return message;
  const known = trimmedCopies.get(message);
  if (known) return known;
  const skill = loadedSkillOf(message);
  let content: string | undefined;
  if (skill !== undefined) content = breadcrumb(skill, describeSkill(skill));
  else {
    const text = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    if (text.length > TRIM.largeChars)
      content = `${text.slice(0, TRIM.keepChars)}\n[… ${text.length - TRIM.keepChars} more characters of this old tool result were cut to save context]`;
  }
  const copy =
    content === undefined
      ? message
      : new ToolMessage({
          ...(message.id !== undefined ? { id: message.id } : {}),
          tool_call_id: message.tool_call_id,
          ...(message.name !== undefined ? { name: message.name } : {}),
          ...(message.status !== undefined ? { status: message.status } : {}),
          content,
        });
  trimmedCopies.set(message, copy);
  return copy;
}

/** One line standing for a skill's instructions that are no longer sent. */
export function breadcrumb(skill: string, description: string | undefined): string {
  const line = description?.replace(/\s+/g, ' ').trim();
  return `[Skill "${skill}" was loaded here${line ? ` (${line})` : ''}; its instructions were removed to save context. Call ${LOAD_SKILL} with {"name":"${skill}"} to read them again.]`;
}

const summaries = new Map<string, HumanMessage>();

/**
 * The summary as the first message sent: what it covers, its text, and breadcrumbs of the skills loaded in the part it
 * replaced. When the user's latest request is itself inside that part (a long turn), it follows verbatim.
 */
export function summaryMessage(
  record: CompactionRecord,
  describeSkill: ViewInput['describeSkill'],
  request?: HumanMessage,
): HumanMessage {
  const key = `${record.upTo}\0${record.at}\0${request?.id ?? ''}`;
  const known = summaries.get(key);
  if (known) return known;
  const crumbs = record.skills.map((name) => {
    const line = describeSkill(name)?.replace(/\s+/g, ' ').trim();
    return `- ${name}${line ? `: ${line}` : ''}`;
  });
  const parts = [
    `<conversation-summary>\nThe earlier conversation (${record.messages} messages) was compacted; this is its summary.\n\n${record.summary.trim()}`,
    ...(crumbs.length
      ? [
          `Skills loaded earlier (their instructions are no longer above; call ${LOAD_SKILL} to read one again):\n${crumbs.join('\n')}`,
        ]
      : []),
    ...(request ? [`The user's latest message, which the summary covers, verbatim:\n${request.text}`] : []),
  ];
  const message = new HumanMessage({
    id: `summary-${record.upTo}`,
    content: `${parts.join('\n\n')}\n</conversation-summary>`,
  });
  if (summaries.size > 64) summaries.clear();
  summaries.set(key, message);
  return message;
}

/** The last user message of the history at or before `index`. */
function requestBefore(messages: readonly BaseMessage[], index: number): HumanMessage | undefined {
  for (let i = index; i >= 0; i -= 1) {
    const m = messages[i];
    if (m && HumanMessage.isInstance(m)) return m;
  }
  return undefined;
}

/**
 * What to send: the latest summary (if any) and the messages after its boundary; over the threshold, old tool results
 * (outside the last exchanges) are cut and loaded skill bodies become breadcrumbs. A pure function of its input, so
 * equal histories give equal views (and provider prompt caches keep hitting between compactions).
 */
export function buildView(input: ViewInput): ContextView {
  const { messages, record, count } = input;
  const start = boundaryIndex(messages, record) + 1;
  let rest = messages.slice(start);
  if (input.threshold === undefined && rest.length > input.cap) rest = contextWindow(rest, input.cap);
  const latestRequest = requestBefore(messages, messages.length - 1);
  const head: BaseMessage[] = [];
  if (record) {
    const covered = latestRequest !== undefined && messages.indexOf(latestRequest, start) === -1;
    head.push(summaryMessage(record, input.describeSkill, covered ? latestRequest : undefined));
  }
  let view = [...head, ...rest];
  let tokens = count.messages(view);
  let trimmedCount = 0;
  const limit = input.threshold === undefined ? Number.POSITIVE_INFINITY : input.threshold * input.budget;
  if (tokens > limit) {
    const protectedFrom = exchangesStart(rest, 0, TRIM.keepExchanges);
    rest = rest.map((m, i) => {
      if (i >= protectedFrom) return m;
      const t = trimmed(m, input.describeSkill);
      if (t !== m) trimmedCount += 1;
      return t;
    });
    view = [...head, ...rest];
    tokens = count.messages(view);
  }
  const over = input.threshold !== undefined && (tokens > limit || rest.length > input.cap);
  return { messages: view, tokens, start, trimmed: trimmedCount, over };
}

/**
 * Where the kept part starts when the older part is summarised: the earliest user message (else the earliest
 * message that is not a tool result) from which the rest fits in `keepTokens`, so a tool call is never separated
 * from its result and whole exchanges stay together where they can. When not even the last step fits, that step
 * alone is kept. Undefined when nothing after `start` could be summarised.
 */
export function splitPoint(
  messages: readonly BaseMessage[],
  start: number,
  count: TokenEstimator,
  keepTokens: number,
): number | undefined {
  let tokens = 0;
  let human: number | undefined;
  let any: number | undefined;
  let last: number | undefined;
  for (let i = messages.length - 1; i > start; i -= 1) {
    const m = messages[i] as BaseMessage;
    tokens += count.message(m);
    const valid = !ToolMessage.isInstance(m);
    if (valid && last === undefined) last = i;
    if (tokens > keepTokens) break;
    if (valid) {
      any = i;
      if (HumanMessage.isInstance(m)) human = i;
    }
  }
  return human ?? any ?? last;
}

/**
 * Whether a `load_skill` result for `name` is still sent as it is: after the latest summary, inside the message
 * cap, and within the last exchanges (older bodies may have become breadcrumbs).
 */
export function skillBodyVisible(
  messages: readonly BaseMessage[],
  records: readonly CompactionRecord[],
  cap: number,
  name: string,
): boolean {
  const from = Math.max(
    boundaryIndex(messages, records.at(-1)) + 1,
    messages.length - cap,
    exchangesStart(messages, 0, TRIM.keepExchanges),
  );
  for (let i = messages.length - 1; i >= from; i -= 1) {
    const m = messages[i];
    if (m && loadedSkillOf(m) === name) return true;
  }
  return false;
}

const isSummary = (m: BaseMessage | undefined) =>
  m !== undefined && HumanMessage.isInstance(m) && typeof m.id === 'string' && m.id.startsWith('summary-');

/**
 * The last safety net before sending, for what compaction could not shrink enough (one huge tool result in the
 * current step, a cap of a few messages): over the message cap, the oldest messages go; over the budget, tool
 * results are cut (largest first), then the oldest steps after the summary are left out — never a tool result
 * without its call, and never the last step.
 */
export function fitView(
  view: readonly BaseMessage[],
  budget: number,
  cap: number,
  count: TokenEstimator,
  describeSkill: ViewInput['describeSkill'],
): BaseMessage[] {
  const headLength = isSummary(view[0]) ? 1 : 0;
  let out = [...view];
  if (out.length > cap) {
    const head = out.slice(0, headLength);
    out = [...head, ...contextWindow(out.slice(headLength), Math.max(1, cap - head.length))];
  }
  let tokens = count.messages(out);
  if (tokens <= budget) return out;
  const tools = out
    .map((m, i) => [i, count.message(m)] as const)
    .filter(([i]) => ToolMessage.isInstance(out[i]))
    .sort((a, b) => b[1] - a[1]);
  for (const [i, size] of tools) {
    const cut = trimmed(out[i] as BaseMessage, describeSkill);
    out[i] = cut;
    tokens += count.message(cut) - size;
    if (tokens <= budget) return out;
  }
  let from = headLength;
  const lastStart = out.findLastIndex((m, i) => i >= headLength && !ToolMessage.isInstance(m));
  while (tokens > budget) {
    let next = from + 1;
    while (next < out.length && ToolMessage.isInstance(out[next])) next += 1;
    if (next > lastStart || next >= out.length) break;
    for (let i = from; i < next; i += 1) tokens -= count.message(out[i] as BaseMessage);
    from = next;
  }
  return [...out.slice(0, headLength), ...out.slice(from)];
}
