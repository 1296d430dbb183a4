import { AIMessage, type BaseMessage, RemoveMessage, ToolMessage } from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { newId } from './ids.js';

export const INTERRUPTED_TOOL_RESULT =
  'Not executed: the run stopped before this tool call finished (crash, cancel, or the user moved on). Its result is unknown; call the tool again if it is still needed.';

/** Valid and unparseable calls alike need an answer: providers send both back as the assistant's tool calls. */
export function callsOf(message: AIMessage): Array<{ id?: string; name?: string }> {
  return [...(message.tool_calls ?? []), ...(message.invalid_tool_calls ?? [])];
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
 * without this one crash would brick the thread.
 */
export function repairDanglingToolCalls(history: BaseMessage[]): Repair {
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
          content: INTERRUPTED_TOOL_RESULT,
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
