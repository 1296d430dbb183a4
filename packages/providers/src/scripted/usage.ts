import type { BaseMessage } from '@langchain/core/messages';

/** Rough token count (about four characters per token for English text), never below 1 for non-empty input. */
export function estimateTokens(text: string): number {
  return text.length === 0 ? 0 : Math.max(1, Math.ceil(text.length / 4));
}

export function messageText(message: BaseMessage): string {
  const content = message.content;
  let text = typeof content === 'string' ? content : '';
  if (Array.isArray(content)) {
    for (const part of content) {
      if (typeof part === 'string') text += part;
      else if (part && typeof part === 'object' && 'text' in part && typeof part.text === 'string')
        text += part.text;
    }
  }
  const toolCalls = (message as { tool_calls?: unknown[] }).tool_calls;
  if (toolCalls?.length) text += JSON.stringify(toolCalls);
  return text;
}

export function estimateInputTokens(messages: BaseMessage[]): number {
  return messages.reduce((sum, message) => sum + estimateTokens(messageText(message)), 0);
}
