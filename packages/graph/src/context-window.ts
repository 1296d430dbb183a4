import { type BaseMessage, ToolMessage } from '@langchain/core/messages';

/**
 * The last `size` messages, minus any ToolMessages at the start whose AIMessage fell outside the window: providers
 * reject a tool result without its call.
 */
export function contextWindow(messages: BaseMessage[], size: number): BaseMessage[] {
  let start = Math.max(0, messages.length - size);
  while (start < messages.length && ToolMessage.isInstance(messages[start])) start += 1;
  return start === 0 ? messages : messages.slice(start);
}
