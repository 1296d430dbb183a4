import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { ResolvedModel } from './agents.js';
import type {
  McpRequestInfo,
  McpSamplingRequest,
  McpSamplingResult,
  McpServerRequests,
  McpTurnHandlers,
} from './mcp-connection.js';
import { textOf } from './message-text.js';
import type { UsageEvent } from './types.js';

/** The sampling request refused: by the user, or because nobody could be asked. */
export class McpSamplingRefused extends Error {
  override name = 'McpSamplingRefused';
  readonly code = 'mcp-sampling-refused';
}

export function isMcpSamplingRefused(value: unknown): value is McpSamplingRefused {
  return value instanceof McpSamplingRefused;
}

/** The request's messages as chat messages: text as is, other blocks named (the model is asked in words). */
export function samplingMessages(request: McpSamplingRequest): BaseMessage[] {
  const messages: BaseMessage[] = [];
  if (request.systemPrompt) messages.push(new SystemMessage(request.systemPrompt));
  for (const message of request.messages) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const text = blocks
      .map((b) => {
        const block = b as { type?: string; text?: unknown; mimeType?: unknown };
        return typeof block.text === 'string'
          ? block.text
          : `[${block.type ?? 'content'}: ${String(block.mimeType ?? '')}]`;
      })
      .join('\n');
    messages.push(message.role === 'assistant' ? new AIMessage(text) : new HumanMessage(text));
  }
  return messages;
}

/**
 * The turn's answers to a server's requests: sampling runs the turn's default model once the user approved the
 * request and then its answer (its tokens reported as a `usage` event, so the run log counts them); elicitation is
 * the front end's. Each is absent when the front end cannot ask.
 */
export function turnRequests(
  handlers: McpTurnHandlers | undefined,
  model: () => Promise<ResolvedModel>,
  onUsage: (usage: UsageEvent) => void,
): McpServerRequests {
  const requests: McpServerRequests = {};
  const approve = handlers?.approveSampling?.bind(handlers);
  if (approve) {
    requests.sample = async (
      request: McpSamplingRequest,
      info: McpRequestInfo,
    ): Promise<McpSamplingResult> => {
      if (!(await approve({ server: info.server, request })))
        throw new McpSamplingRefused(`The user declined ${info.server}'s sampling request.`);
      const chosen = await model();
      const reply = await chosen.model.invoke(samplingMessages(request), { signal: info.signal });
      const usage = (reply as AIMessage).usage_metadata;
      if (usage)
        onUsage({
          type: 'usage',
          inputTokens: usage.input_tokens,
          outputTokens: usage.output_tokens,
          model: chosen.name,
        });
      const answer = textOf(reply);
      if (!(await approve({ server: info.server, request, answer })))
        throw new McpSamplingRefused(`The user kept the answer to ${info.server}'s sampling request.`);
      return {
        role: 'assistant',
        content: { type: 'text', text: answer },
        model: chosen.name,
        stopReason: 'endTurn',
      };
    };
  }
  const elicit = handlers?.elicit?.bind(handlers);
  if (elicit) requests.elicit = (request, info) => elicit(request, { server: info.server });
  return requests;
}
