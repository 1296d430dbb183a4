import type { Agent, CompactionRecord } from '@birdie/graph';
import type { Store } from '@birdie/store';
import type { BaseMessage } from '@langchain/core/messages';
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
  const { childThreadId } = await import('@birdie/graph');
  const agent = await checkpointReader(store);
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
 * A bare agent over the store's checkpoints, to read threads with: no skills, and a model that is never called (the
 * agent needs one to exist). Close it when done.
 */
export async function checkpointReader(store: Store): Promise<Agent> {
  const [{ createAgent }, { loadRegistry, SkillPolicy }, { ScriptedChatModel }] = await Promise.all([
    import('@birdie/graph'),
    import('@birdie/registry'),
    import('@birdie/providers'),
  ]);
  const registry = await loadRegistry({ dirs: [] });
  return createAgent({
    model: new ScriptedChatModel([]),
    registry,
    policy: new SkillPolicy(registry),
    checkpointer: store.checkpointer,
  });
}
