import type { Agent, CompactionRecord } from '@birdie/graph';
import type { Store } from '@birdie/store';
import type { BaseMessage } from '@langchain/core/messages';
import { plural } from './render/diagnostics.js';
import type { Style } from './render/style.js';
import { formatArgs } from './render/tool-output.js';
import type { FailureLike } from './store-failure.js';

/** A session's history; with `damage`, only the part up to the last step that reads fine. */
export interface History {
  messages: BaseMessage[];
  /** The conversation of each subagent the session's `task` calls ran, by task call id (nested the same way). */
  subagents?: Map<string, History>;
  /** The session's compactions, oldest first (what is sent as a summary; the messages are all kept). */
  compactions?: CompactionRecord[];
  /** Why the history stops early: the store's `corrupt-record` failure, naming the session, the step and the file. */
  damage?: FailureLike;
}

/**
 * A session's messages, read through the graph (its message channel stores deltas, so the checkpoint alone is not
 * the list). A damaged record does not hide the rest: the history is read at the last good step, with the damage
 * named. The agent needs a model to exist; this one is never called.
 */
export async function readHistory(store: Store, sessionId: string): Promise<History> {
  const [{ createAgent, childThreadId }, { loadRegistry, SkillPolicy }, { ScriptedChatModel }] =
    await Promise.all([import('@birdie/graph'), import('@birdie/registry'), import('@birdie/providers')]);
  const registry = await loadRegistry({ dirs: [] });
  const agent = createAgent({
    model: new ScriptedChatModel([]),
    registry,
    policy: new SkillPolicy(registry),
    checkpointer: store.checkpointer,
  });
  try {
    return await withSubagents(agent, await historyOf(agent, sessionId), sessionId, childThreadId);
  } finally {
    await agent.close();
  }
}

/** Depth of nested subagents read for a history (the graph's default depth limit). */
const MAX_SUBAGENT_DEPTH = 3;

/** Adds the subagent conversations of the history's `task` calls, read from their child threads. */
async function withSubagents(
  agent: Pick<Agent, 'getState'>,
  history: History,
  threadId: string,
  childThreadId: (parent: string, callId: string) => string,
  depth = 0,
): Promise<History> {
  if (depth >= MAX_SUBAGENT_DEPTH) return history;
  const subagents = new Map<string, History>();
  for (const message of history.messages) {
    const calls =
      (message as unknown as { tool_calls?: Array<{ id?: string; name: string }> }).tool_calls ?? [];
    for (const call of calls) {
      if (call.name !== 'task' || !call.id) continue;
      const child = childThreadId(threadId, call.id);
      const read = await historyOf(agent, child).catch(() => undefined);
      if (read && read.messages.length > 0)
        subagents.set(call.id, await withSubagents(agent, read, child, childThreadId, depth + 1));
    }
  }
  return subagents.size > 0 ? { ...history, subagents } : history;
}

/** `agent.getState` that falls back to the last good step when a stored record of the thread is damaged. */
export async function historyOf(agent: Pick<Agent, 'getState'>, sessionId: string): Promise<History> {
  try {
    const state = await agent.getState(sessionId);
    return {
      messages: state.messages,
      ...(state.compactions?.length ? { compactions: state.compactions } : {}),
    };
  } catch (error) {
    const damage = (error as { code?: string; damage?: { lastGoodCheckpointId?: string } }).damage;
    if ((error as { code?: string }).code !== 'corrupt-record' || !damage) throw error;
    const lastGood = damage.lastGoodCheckpointId;
    const messages = lastGood ? (await agent.getState(sessionId, { checkpointId: lastGood })).messages : [];
    const { code, message, hint } = error as FailureLike;
    return { messages, damage: { code, message, ...(hint ? { hint } : {}) } };
  }
}

/**
 * Human, AI and tool messages as the REPL shows them; `limit` keeps the last N human turns. A subagent's conversation
 * (when `subagents` has it) is shown under its `task` call, indented. `answer`, when given, renders an answer's text
 * (the REPL's Markdown rendering in a terminal); without it answers are shown as they were written.
 */
export function formatHistory(
  messages: BaseMessage[],
  style: Style,
  limit?: number,
  subagents?: Map<string, History>,
  compacted?: { compactions: readonly CompactionRecord[]; full: boolean },
  answer?: (text: string) => string,
): string {
  const records = compacted?.compactions ?? [];
  const boundaryAt = (record: CompactionRecord) => {
    const i = messages.findIndex((m) => m.id === record.upTo);
    return i >= 0 ? i : Math.min(record.messages, messages.length) - 1;
  };
  const boundaries = new Map(records.map((r) => [boundaryAt(r), r]));
  const rule = (record: CompactionRecord) =>
    style(
      'dim',
      `── compacted (${record.trigger}, ${record.at.slice(0, 16).replace('T', ' ')}, ${record.model}): the ${plural(record.messages, 'message')} above ${record.messages === 1 ? 'is' : 'are'} sent as a summary ──`,
    );
  const latest = records.at(-1);
  let start = 0;
  const lines: string[] = [];
  if (latest && !compacted?.full && limit === undefined) {
    // What the model is sent now: the latest summary instead of the messages it covers.
    start = boundaryAt(latest) + 1;
    lines.push(
      style(
        'dim',
        `── ${latest.messages} earlier messages, sent as this summary (birdie sessions show --full shows them) ──`,
      ),
      style('dim', latest.summary.trim()),
      style('dim', '── end of summary ──'),
    );
  }
  if (limit !== undefined) {
    const humans = messages.flatMap((m, i) => (m.getType() === 'human' ? [i] : []));
    start = humans.length > limit ? humans[humans.length - limit]! : 0;
  }
  for (const [offset, message] of messages.slice(start).entries()) {
    const type = message.getType();
    const text = message.text;
    if (type === 'human') lines.push(`${style('cyan', '›')} ${text.replace(/\n/g, '\n  ')}`);
    else if (type === 'ai') {
      // An answer cut short by Ctrl+C is kept as far as it was shown, and says so.
      const cancelled =
        (message.response_metadata as { cancelled?: boolean } | undefined)?.cancelled === true;
      const shown = text && answer ? answer(text) : text;
      if (shown) lines.push(cancelled ? `${shown} ${style('yellow', '[cancelled]')}` : shown);
      const calls =
        (message as unknown as { tool_calls?: Array<{ id?: string; name: string; args: unknown }> })
          .tool_calls ?? [];
      for (const call of calls) {
        lines.push(
          `${style('magenta', '⚙')} ${style('bold', call.name)} ${style('dim', formatArgs(call.args))}`,
        );
        const child = call.id ? subagents?.get(call.id) : undefined;
        if (child) {
          const nested = formatHistory(child.messages, style, undefined, child.subagents).trimEnd();
          lines.push(...nested.split('\n').map((line) => `  ${style('dim', '│')} ${line}`));
        }
      }
    } else if (type === 'tool') {
      const first = text.split('\n')[0] ?? '';
      const status =
        (message as unknown as { status?: string }).status === 'error'
          ? style('red', '✗')
          : style('green', '✓');
      lines.push(
        `${style('dim', '└')} ${status} ${style('dim', first.length > 100 ? `${first.slice(0, 100)}…` : first)}`,
      );
    }
    const record = compacted?.full ? boundaries.get(start + offset) : undefined;
    if (record) lines.push(rule(record));
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
