import { AIMessage, type BaseMessage, ToolMessage } from '@langchain/core/messages';
import { newId } from './ids.js';

type Block = { type?: string; id?: unknown; [key: string]: unknown };
type RawCall = { id?: unknown; [key: string]: unknown };

/**
 * The model's reply rebuilt as a new AIMessage whose message id and tool call ids are unique in the thread. The
 * checkpoint's message reducer replaces messages that share an id, and approval decisions are keyed by call id: a call
 * that reused an earlier (or a sibling's) id would inherit its decision. Some OpenAI-compatible servers number calls
 * per response (`call_0`, …), so repeats do happen.
 *
 * The reply is never changed in place: a streamed reply is an AIMessageChunk whose stored form rebuilds its calls
 * from `tool_call_chunks`, so a rename made on the object would be lost in the checkpoint and the next run would see
 * the old ids again. Every place a vendor keeps the ids (tool calls, invalid calls, Anthropic `tool_use` content
 * blocks, OpenAI's raw `additional_kwargs.tool_calls`) gets the same new ids, in order.
 */
export function withUniqueIds(reply: AIMessage, history: readonly BaseMessage[]): AIMessage {
  const takenMessages = new Set(history.map((m) => m.id));
  const takenCalls = new Set<string>();
  for (const m of history) {
    if (AIMessage.isInstance(m)) for (const call of m.tool_calls ?? []) if (call.id) takenCalls.add(call.id);
    if (ToolMessage.isInstance(m)) takenCalls.add(m.tool_call_id);
  }
  const fresh = (id: string | undefined) => {
    const next = !id || takenCalls.has(id) ? newId('call') : id;
    takenCalls.add(next);
    return next;
  };
  const toolCalls = (reply.tool_calls ?? []).map((call) => ({ ...call, id: fresh(call.id) }));
  const invalidCalls = (reply.invalid_tool_calls ?? []).map((call) => ({ ...call, id: fresh(call.id) }));
  const ids = toolCalls.map((c) => c.id);

  const content = Array.isArray(reply.content)
    ? renumber(reply.content as Block[], (b) => b?.type === 'tool_use' || b?.type === 'tool_call', ids)
    : reply.content;
  const additional = { ...reply.additional_kwargs };
  if (Array.isArray(additional.tool_calls)) {
    const raw = additional.tool_calls as RawCall[];
    if (raw.length === ids.length) additional.tool_calls = renumber(raw, () => true, ids) as never;
    else delete additional.tool_calls; // cannot be paired with the parsed calls: the parsed ones are the truth
  }
  const id = reply.id && !takenMessages.has(reply.id) ? reply.id : newId('ai');
  return new AIMessage({
    id,
    content: content as AIMessage['content'],
    tool_calls: toolCalls,
    invalid_tool_calls: invalidCalls,
    additional_kwargs: additional,
    response_metadata: { ...reply.response_metadata },
    ...(reply.usage_metadata ? { usage_metadata: { ...reply.usage_metadata } } : {}),
    ...(reply.name !== undefined ? { name: reply.name } : {}),
  });
}

/** Copies of `items` where the ones `pick` selects take `ids` in order (only when the counts agree). */
function renumber<T extends { id?: unknown }>(items: T[], pick: (item: T) => boolean, ids: string[]): T[] {
  const picked = items.filter(pick);
  if (picked.length !== ids.length)
    return items.map((item) => (item && typeof item === 'object' ? { ...item } : item));
  let k = 0;
  return items.map((item) =>
    pick(item) ? { ...item, id: ids[k++] } : item && typeof item === 'object' ? { ...item } : item,
  );
}
