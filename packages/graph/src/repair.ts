import { AIMessage, type BaseMessage, RemoveMessage, ToolMessage } from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { newId } from './ids.js';

/** For a call the journal shows never started: it had no effect, so repeating it is safe. */
export const NOT_STARTED_TOOL_RESULT =
  'Not executed: the run stopped before this tool call started (crash, cancel, or the user moved on). It had no effect; call the tool again if it is still needed.';

/**
 * For a call that was waiting for the user's approval when the user sent a message instead (this process asked): it
 * never started, journal or not.
 */
export const UNANSWERED_APPROVAL_RESULT =
  "Not executed: this call was waiting for the user's approval, and the user sent a new message instead of answering. It had no effect; call the tool again if it is still needed.";

/** For a call the journal shows started: its effect may have happened even though no result was recorded. */
export const STARTED_TOOL_RESULT =
  'Started, result unknown: the run stopped while this tool call was running (crash or cancel). It may have had its effect; check before calling it again.';

/** For a call the journal saw succeed whose result did not reach the checkpoint: its effect happened. */
export const FINISHED_TOOL_RESULT =
  'Finished before the run stopped, but its output was lost (crash or cancel): it ran to the end and succeeded, so its effect happened. Check the outcome rather than calling it again.';

/** For a call the journal saw fail whose error did not reach the checkpoint. */
export const FAILED_TOOL_RESULT =
  'Failed before the run stopped, and its error output was lost (crash or cancel). Check what it left behind before calling it again.';

/** Without a journal nobody knows whether the call started, so the model is told to check, as if it had. */
export const UNKNOWN_TOOL_RESULT =
  'Result unknown: the run stopped before this tool call reported a result (crash, cancel, or the user moved on). It may have had its effect; check before calling it again.';

/** Valid and unparseable calls alike need an answer: providers send both back as the assistant's tool calls. */
export function callsOf(message: AIMessage): Array<{ id?: string; name?: string }> {
  return [...(message.tool_calls ?? []), ...(message.invalid_tool_calls ?? [])];
}

/** Ids of tool calls that have no ToolMessage yet, in history order. */
export function danglingCalls(history: readonly BaseMessage[]): string[] {
  const answered = new Set<string>();
  for (const message of history) if (ToolMessage.isInstance(message)) answered.add(message.tool_call_id);
  const ids: string[] = [];
  for (const message of history) {
    if (!AIMessage.isInstance(message)) continue;
    for (const call of callsOf(message))
      if (call.id !== undefined && !answered.has(call.id)) ids.push(call.id);
  }
  return ids;
}

/** What the journal knows about a call cut off before its result was saved. */
function placeholderFor(
  id: string,
  started: ReadonlySet<string> | undefined,
  finished: ReadonlyMap<string, boolean> | undefined,
  unanswered: ReadonlySet<string> | undefined,
): string {
  // The journal wins: this process's memory of the question can be stale (the approval reached another worker,
  // which started the call there).
  const ended = finished?.get(id);
  if (unanswered?.has(id) && !started?.has(id) && ended === undefined) return UNANSWERED_APPROVAL_RESULT;
  if (!started) return UNKNOWN_TOOL_RESULT;
  if (ended !== undefined) return ended ? FINISHED_TOOL_RESULT : FAILED_TOOL_RESULT;
  return started.has(id) ? STARTED_TOOL_RESULT : NOT_STARTED_TOOL_RESULT;
}

export interface Repair {
  /** The history with a placeholder ToolMessage right after each AIMessage whose calls had no result. */
  messages: BaseMessage[];
  /** The writes that turn the stored history into `messages` (empty when nothing dangled). */
  update: BaseMessage[];
  /** The tool call ids that got a placeholder. */
  repaired: string[];
}

/**
 * Finds tool calls without a ToolMessage (e.g. the process died between the model's answer and the tool's result)
 * and inserts placeholder results right after their AIMessage. Providers reject a history with unanswered calls, so
 * without this one crash would brick the thread. `started` holds the ids the journal recorded as started; without a
 * journal it is undefined and every placeholder says the result is unknown. `unanswered` holds the ids of calls that
 * were waiting for the user's approval when the user moved on: they never started, unless the journal saw them start
 * (answered elsewhere).
 */
export function repairDanglingToolCalls(
  history: BaseMessage[],
  started?: ReadonlySet<string>,
  finished?: ReadonlyMap<string, boolean>,
  unanswered?: ReadonlySet<string>,
): Repair {
  const answered = new Set<string>();
  for (const message of history) if (ToolMessage.isInstance(message)) answered.add(message.tool_call_id);

  const messages: BaseMessage[] = [];
  const repaired: string[] = [];
  let firstInsert = -1;
  for (const message of history) {
    messages.push(message);
    if (!AIMessage.isInstance(message)) continue;
    for (const call of callsOf(message)) {
      if (call.id === undefined || answered.has(call.id)) continue;
      if (firstInsert === -1) firstInsert = messages.length;
      answered.add(call.id);
      repaired.push(call.id);
      messages.push(
        new ToolMessage({
          id: newId('repair'),
          tool_call_id: call.id,
          name: call.name ?? 'unknown',
          status: 'error',
          content: placeholderFor(call.id, started, finished, unanswered),
        }),
      );
    }
  }
  if (repaired.length === 0) return { messages: history, update: [], repaired };

  // The delta reducer appends unknown ids and replaces known ones; to put placeholders *before* later messages we
  // remove those later messages and append them again after the placeholders.
  const later = history.slice(firstInsert);
  if (later.some((m) => m.id === undefined)) {
    return { messages, update: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages], repaired };
  }
  const update = [
    ...later.map((m) => new RemoveMessage({ id: m.id as string })),
    ...messages.slice(firstInsert),
  ];
  return { messages, update, repaired };
}
