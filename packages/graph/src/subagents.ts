import { createHash } from 'node:crypto';
import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { TASK } from './agent-tools.js';
import type { TurnContext } from './turn-context.js';
import type { AgentEvent, ApprovalDecision, ApprovalRequest, ToolJournal } from './types.js';

const HASH_CHARS = 20;
const MAX_THREAD_ID = 128;

/**
 * The thread of the subagent a `task` call runs: derived from the parent thread and the call id (unique in the
 * parent thread), so a resume — in this process or the next — finds it again. Always a valid thread id
 * (`THREAD_ID_PATTERN`): a prefix of the parent's id, `.sub-`, and 20 hex digits of a digest of both.
 */
export function childThreadId(parentThread: string, callId: string): string {
  const hash = createHash('sha256')
    .update(parentThread)
    .update('\0')
    .update(callId)
    .digest('hex')
    .slice(0, HASH_CHARS);
  const suffix = `.sub-${hash}`;
  return `${parentThread.slice(0, MAX_THREAD_ID - suffix.length)}${suffix}`;
}

/**
 * A subagent's calls go to its parent's journal (the session's run log) under `<child thread>/<call id>`, so they
 * never collide with the parent's own call ids and a log can show them under the `task` call that ran them.
 */
export function childJournal(journal: ToolJournal | undefined, childThread: string): ToolJournal | undefined {
  if (!journal) return undefined;
  const prefix = `${childThread}/`;
  const wrapped: ToolJournal = {
    started: (call) => journal.started({ ...call, id: prefix + call.id }),
    finished: (call) => journal.finished({ ...call, id: prefix + call.id }),
    async startedAmong(ids) {
      const found = await journal.startedAmong(ids.map((id) => prefix + id));
      return new Set([...found].map((id) => id.slice(prefix.length)));
    },
  };
  const finishedAmong = journal.finishedAmong?.bind(journal);
  if (finishedAmong) {
    wrapped.finishedAmong = async (ids) => {
      const found = await finishedAmong(ids.map((id) => prefix + id));
      return new Map([...found].map(([id, ok]) => [id.slice(prefix.length), ok]));
    };
  }
  return wrapped;
}

/** A parent-side request: the child's request under `<task call id>/<child call id>`, so it is unique in the parent. */
export function liftRequest(callId: string, request: ApprovalRequest): ApprovalRequest {
  return { ...request, id: `${callId}/${request.id}` };
}

/** The `task` calls of the last model turn that have no result yet: their subagents wait for approvals. */
export function waitingTasks(messages: readonly BaseMessage[]): Array<{ id: string; agent: string }> {
  let i = messages.length - 1;
  const answered = new Set<string>();
  while (i >= 0 && ToolMessage.isInstance(messages[i])) {
    answered.add((messages[i] as ToolMessage).tool_call_id);
    i -= 1;
  }
  const ai = messages[i];
  if (!ai || !AIMessage.isInstance(ai)) return [];
  return (ai.tool_calls ?? []).flatMap((call) =>
    call.name === TASK && call.id && !answered.has(call.id)
      ? [{ id: call.id, agent: String((call.args as { agent?: unknown }).agent) }]
      : [],
  );
}

/** What a subagent's run came to: its final answer, or a stop for approvals. Failures are thrown. */
export type ChildOutcome = { content: string } | { suspended: true };

export interface ChildRequest {
  /** The parent's turn and thread. */
  parent: TurnContext & { threadId: string; signal?: AbortSignal };
  /** The agent path down to the parent's agent (the subagent's `TurnContext.path`). */
  ancestors: string[];
  callId: string;
  agent: string;
  /** Where the subagent's events go: the parent's event stream. */
  emit: (event: AgentEvent) => void;
}

/** What the tools and subagents nodes need from the agent to run subagents (the agent implements it). */
export interface SubagentRuns {
  start(request: ChildRequest & { prompt: string }): Promise<ChildOutcome>;
  /** Resumes a waiting subagent with one decision per request of its own (child ids). */
  resume(request: ChildRequest, decisions: Record<string, ApprovalDecision>): Promise<ChildOutcome>;
  /** The open approval requests of a subagent's thread, in its own ids. */
  pending(childThread: string): Promise<ApprovalRequest[]>;
  /** The final answer of a subagent that is not waiting, or undefined when its run stopped without one. */
  finalAnswer(childThread: string): Promise<string | undefined>;
}
