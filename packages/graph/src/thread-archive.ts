import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { Overwrite, type StateSnapshot } from '@langchain/langgraph';
import type { ArchiveRecord, CompactionRecord } from './types.js';

// A compacted thread's `messages` channel is reset to what follows the latest summary's boundary, so that a start
// (which rebuilds the channel from its newest snapshot) decodes only that, however long the session. The messages
// before the boundary are not lost: the checkpoint taken just before the reset still holds them, and `getState`
// reads them from there when the whole history is asked for (a transcript, an export, a run's messages).

/** What the archive needs of the agent's compiled graph (named apart: the graph's nodes import this module). */
export interface ArchivingGraph {
  getState(config: RunnableConfig): Promise<StateSnapshot>;
  updateState(config: RunnableConfig, values: Record<string, unknown>, asNode: string): Promise<unknown>;
}

export interface ThreadValues {
  messages?: BaseMessage[];
  compactions?: CompactionRecord[];
  archives?: ArchiveRecord[];
}

/** How many messages of the whole history come before `values.messages` (0: they are the whole history). */
export function liveOffset(values: ThreadValues): number {
  const last = values.archives?.at(-1);
  // The reset keeps the boundary's message first: a channel that does not start with it was never reset.
  return last && values.messages?.[0]?.id === last.upTo ? last.offset : 0;
}

/**
 * What a reset writes: the messages from the latest compaction's last covered one on (it stays first, so the view
 * finds the boundary as before), and the record naming the checkpoint that keeps the rest. Undefined when there is
 * nothing new to archive, or when the user's latest request is covered by the summary (the view sends it verbatim,
 * so it must stay in the channel until a later request follows it).
 */
export function archivePlan(
  values: ThreadValues,
  checkpointId: string | undefined,
  at: string,
): { kept: BaseMessage[]; record: ArchiveRecord } | undefined {
  const compaction = values.compactions?.at(-1);
  const messages = values.messages ?? [];
  if (!compaction?.upTo || !checkpointId) return undefined;
  if (values.archives?.at(-1)?.upTo === compaction.upTo) return undefined;
  const boundary = messages.findLastIndex((m) => m.id === compaction.upTo);
  if (boundary <= 0) return undefined;
  if (messages.findLastIndex((m) => HumanMessage.isInstance(m)) <= boundary) return undefined;
  return {
    kept: messages.slice(boundary),
    record: { checkpointId, upTo: compaction.upTo, offset: liveOffset(values) + boundary, at },
  };
}

/**
 * Resets the thread's messages after its latest compaction, when the thread is not waiting for anything (no pending
 * approval, no next step). Written as the agent node's update, like a `/compact`: the next turn starts from the
 * user. True when it reset them.
 */
export async function archiveCompacted(graph: ArchivingGraph, threadId: string): Promise<boolean> {
  const config = { configurable: { thread_id: threadId } };
  const snapshot = await graph.getState(config);
  if (snapshot.next.length > 0 || snapshot.tasks.some((t) => (t.interrupts?.length ?? 0) > 0)) return false;
  const checkpointId = snapshot.config?.configurable?.checkpoint_id as string | undefined;
  const plan = archivePlan(snapshot.values as ThreadValues, checkpointId, new Date().toISOString());
  if (!plan) return false;
  await graph.updateState(config, { messages: new Overwrite(plan.kept), archives: [plan.record] }, 'agent');
  return true;
}

/** Archives deeper than this are not followed (a thread compacts once every several turns at most). */
const MAX_ARCHIVES = 100_000;

/**
 * The whole history of a thread whose values are `values`: the messages before each reset, read from the
 * checkpoints the archives name (`read`), then the live ones. The boundary's message, kept on both sides of a reset,
 * appears once.
 */
export async function wholeHistory(
  values: ThreadValues,
  read: (checkpointId: string) => Promise<ThreadValues>,
): Promise<BaseMessage[]> {
  const pieces: BaseMessage[][] = [];
  let current = values;
  // How many of the current values' whole history belong to the history asked for.
  let wanted = Number.POSITIVE_INFINITY;
  for (let depth = 0; depth <= MAX_ARCHIVES; depth += 1) {
    const messages = current.messages ?? [];
    const offset = liveOffset(current);
    pieces.push(
      wanted === Number.POSITIVE_INFINITY ? messages : messages.slice(0, Math.max(0, wanted - offset)),
    );
    if (offset === 0) break;
    wanted = offset;
    current = await read(current.archives!.at(-1)!.checkpointId);
  }
  return pieces.reverse().flat();
}
