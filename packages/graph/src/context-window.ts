import { type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';

/**
 * The last `size` messages, minus any ToolMessages at the start whose AIMessage fell outside the window (providers
 * reject a tool result without its call). When the window then does not start with the user, the user message that
 * opened the current exchange is put in front: the model keeps seeing the request it is working on, and providers
 * that want a user message first get one.
 */
export function contextWindow(messages: BaseMessage[], size: number): BaseMessage[] {
  let start = Math.max(0, messages.length - size);
  if (start === 0) return messages;
  while (start < messages.length && ToolMessage.isInstance(messages[start])) start += 1;
  const window = messages.slice(start);
  if (window.length > 0 && HumanMessage.isInstance(window[0])) return window;
  for (let i = start - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m && HumanMessage.isInstance(m)) return [m, ...window];
  }
  return window;
}
