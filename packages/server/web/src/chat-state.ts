import type { ApprovalRequest, Message, TurnEvent } from './types.js';

// What the chat shows, as data: the session's history, then the events of the turn that runs, folded in one by one.
// Pure functions over plain objects, so the view only renders and tests can feed events directly.

export type Item =
  | { kind: 'user'; key: string; text: string }
  | { kind: 'assistant'; key: string; text: string; final: boolean; cancelled?: boolean }
  | {
      kind: 'tool';
      key: string;
      id: string;
      name: string;
      args: Record<string, unknown>;
      output: string;
      ok?: boolean;
      truncated?: boolean;
      durationMs?: number;
      /** When this page saw it start (for the running clock; durationMs is the server's once it ends). */
      startedAt: number;
      depth: number;
      /** A `task` call's subagent: its answer and tools. */
      children: Item[];
    }
  | { kind: 'notice'; key: string; text: string; tone: 'error' | 'info' };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  context?: { tokens: number; window: number };
}

export interface ChatState {
  items: Item[];
  pending: ApprovalRequest[];
  running: boolean;
  /** The turn's usage so far (usage events add up). */
  usage: Usage;
  status?: string;
  lastId?: number;
  seq: number;
  /** The arguments of the calls this turn asked about, by id: a call the user rejects ends without starting. */
  asked?: Record<string, Record<string, unknown>>;
}

export const emptyChat = (): ChatState => ({
  items: [],
  pending: [],
  running: false,
  usage: { inputTokens: 0, outputTokens: 0 },
  seq: 0,
});

/** The session's saved messages as items: a tool message fills its call's block. */
export function itemsOfHistory(messages: Message[]): Item[] {
  const items: Item[] = [];
  const calls = new Map<string, Extract<Item, { kind: 'tool' }>>();
  messages.forEach((m, i) => {
    if (m.role === 'human') items.push({ kind: 'user', key: `h${i}`, text: m.content });
    else if (m.role === 'ai') {
      if (m.content)
        items.push({
          kind: 'assistant',
          key: `h${i}`,
          text: m.content,
          final: true,
          ...(m.cancelled ? { cancelled: true } : {}),
        });
      for (const [j, call] of (m.tool_calls ?? []).entries()) {
        const item: Extract<Item, { kind: 'tool' }> = {
          kind: 'tool',
          key: `h${i}.${j}`,
          id: call.id ?? `h${i}.${j}`,
          name: call.name,
          args: call.args,
          output: '',
          startedAt: 0,
          depth: 0,
          children: [],
        };
        if (call.id) calls.set(call.id, item);
        items.push(item);
      }
    } else if (m.role === 'tool' && m.tool_call_id) {
      const call = calls.get(m.tool_call_id);
      if (call) {
        call.output = m.content;
        call.ok = m.status !== 'error';
      }
    }
  });
  return items;
}

/** History up to and including its last human message: the running turn's events replay the rest. */
export function untilLastPrompt(messages: Message[]): Message[] {
  for (let i = messages.length - 1; i >= 0; i--)
    if (messages[i]!.role === 'human') return messages.slice(0, i + 1);
  return messages;
}

type Tool = Extract<Item, { kind: 'tool' }>;

/** The list an event of agent path `agent` goes in: under the running `task` call of its parent agent, if any. */
function listFor(items: Item[], depth: number): Item[] {
  let list = items;
  for (;;) {
    const task = [...list]
      .reverse()
      .find(
        (i): i is Tool => i.kind === 'tool' && i.name === 'task' && i.ok === undefined && i.depth < depth,
      );
    if (!task) return list;
    list = task.children;
  }
}

function findTool(items: Item[], id: string): Tool | undefined {
  for (const item of items) {
    if (item.kind !== 'tool') continue;
    if (item.id === id) return item;
    const inner = findTool(item.children, id);
    if (inner) return inner;
  }
  return undefined;
}

/** The state after one event of the turn (a new object; nested lists are copied where they change). */
export function applyEvent(state: ChatState, event: TurnEvent, now: number): ChatState {
  const s: ChatState = { ...state, items: structuredClone(state.items), seq: state.seq + 1 };
  const depth = event.agent && event.agent.length > 1 ? event.agent.length - 1 : 0;
  const key = `e${s.seq}`;
  switch (event.type) {
    case 'token': {
      const list = listFor(s.items, depth);
      const last = list.at(-1);
      if (last?.kind === 'assistant' && !last.final) last.text += event.text;
      else list.push({ kind: 'assistant', key, text: event.text, final: false });
      break;
    }
    case 'message': {
      if (event.message.role !== 'ai') break;
      const list = listFor(s.items, depth);
      const last = list.at(-1);
      if (last?.kind === 'assistant' && !last.final) {
        last.text = event.message.content || last.text;
        last.final = true;
        if (event.message.cancelled) last.cancelled = true;
      } else if (event.message.content) {
        list.push({ kind: 'assistant', key, text: event.message.content, final: true });
      }
      break;
    }
    case 'tool-start': {
      if (findTool(s.items, event.id)) break;
      listFor(s.items, depth).push({
        kind: 'tool',
        key,
        id: event.id,
        name: event.name,
        args: event.args,
        output: '',
        startedAt: now,
        depth,
        children: [],
      });
      break;
    }
    case 'tool-output': {
      const tool = findTool(s.items, event.id);
      if (tool) tool.output += event.text;
      break;
    }
    case 'tool-end': {
      const tool = findTool(s.items, event.id);
      if (tool) {
        tool.output = event.output;
        tool.ok = event.ok;
        tool.truncated = event.truncated;
        tool.durationMs = event.durationMs;
        break;
      }
      // A call that ended without starting (rejected, refused by a rule, a tool that is not there): shown as it
      // ended, with the arguments it was asked with when it was asked about, as the history shows it after a reload.
      listFor(s.items, depth).push({
        kind: 'tool',
        key,
        id: event.id,
        name: event.name,
        args: s.asked?.[event.id] ?? {},
        output: event.output,
        ok: event.ok,
        truncated: event.truncated,
        durationMs: event.durationMs,
        startedAt: now,
        depth,
        children: [],
      });
      break;
    }
    case 'usage':
      s.usage = {
        inputTokens: s.usage.inputTokens + event.inputTokens,
        outputTokens: s.usage.outputTokens + event.outputTokens,
        ...(event.context ? { context: event.context } : s.usage.context ? { context: s.usage.context } : {}),
      };
      break;
    case 'error':
      s.items.push({ kind: 'notice', key, text: event.error.message, tone: 'error' });
      break;
    case 'approval-request':
      s.pending = event.requests;
      s.asked = { ...s.asked, ...Object.fromEntries(event.requests.map((r) => [r.id, r.args])) };
      s.running = false;
      s.status = 'waiting for approval';
      break;
    case 'done':
      s.status = event.status;
      break;
    case 'result':
      s.running = false;
      s.status = event.status;
      if (event.status === 'cancelled')
        s.items.push({ kind: 'notice', key, text: 'The turn was cancelled.', tone: 'info' });
      break;
  }
  return s;
}

/** Whether the history's item says what the shown one says (a shown call may know more: its clock, its subagent). */
function sameItem(shown: Item, saved: Item): boolean {
  switch (saved.kind) {
    case 'user':
      return shown.kind === 'user' && shown.text === saved.text;
    case 'assistant':
      return (
        shown.kind === 'assistant' &&
        shown.final &&
        shown.text === saved.text &&
        !!shown.cancelled === !!saved.cancelled
      );
    case 'tool':
      return (
        shown.kind === 'tool' &&
        shown.id === saved.id &&
        shown.output === saved.output &&
        shown.ok === saved.ok
      );
    case 'notice':
      return false;
  }
}

/** What the page showed that no history has: a notice, an answer cut before it was saved. */
const unsaved = (item: Item) => item.kind === 'notice' || (item.kind === 'assistant' && !item.final);

/**
 * The chat's items after its history was read again (a turn of another client wrote it meanwhile): what did not
 * change stays the same object with the same key, so the page keeps its nodes (the reader's selection and scroll
 * stay); a call whose outcome came since keeps its key; what is new is added; notices and unsaved partial answers
 * stay where they were. Only what changed is rendered again.
 */
export function mergeItems(shown: Item[], saved: Item[]): Item[] {
  const merged: Item[] = [];
  let j = 0;
  let diverged = false;
  for (const item of saved) {
    while (!diverged && j < shown.length && unsaved(shown[j]!)) merged.push(shown[j++]!);
    const old = diverged ? undefined : shown[j];
    if (old && sameItem(old, item)) {
      merged.push(old);
      j++;
    } else if (old && old.kind === 'tool' && item.kind === 'tool' && old.id === item.id) {
      merged.push({ ...item, key: old.key });
      j++;
    } else {
      diverged = true;
      merged.push(item);
    }
  }
  if (!diverged) while (j < shown.length && unsaved(shown[j]!)) merged.push(shown[j++]!);
  // A new item's key (the history's are by message index) may be one a kept item already has.
  const keys = new Set<string>();
  return merged.map((item) => {
    let key = item.key;
    for (let n = 1; keys.has(key); n++) key = `${item.key}~${n}`;
    keys.add(key);
    return key === item.key ? item : { ...item, key };
  });
}
