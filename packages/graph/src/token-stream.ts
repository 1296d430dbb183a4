import {
  BaseCallbackHandler,
  type HandleLLMNewTokenCallbackFields,
  type NewTokenIndices,
} from '@langchain/core/callbacks/base';
import type { Callbacks } from '@langchain/core/callbacks/manager';
import type { BaseMessage } from '@langchain/core/messages';
import { textOf } from './message-text.js';

/**
 * Forwards the model's tokens as they arrive. `lc_prefer_streaming` makes LangChain call the model's streaming
 * path even from `invoke`, for this one model call only — cheaper than LangGraph's `messages` stream mode, which
 * watches every runnable of the graph.
 */
export class TokenForwarder extends BaseCallbackHandler {
  name = 'birdie-token-forwarder';
  lc_prefer_streaming = true;
  streamed = false;
  /** Everything streamed so far. */
  text = '';

  constructor(private readonly onToken: (text: string) => void) {
    super({ _awaitHandler: true });
  }

  override handleLLMNewToken(
    token: string,
    _idx: NewTokenIndices,
    _runId: string,
    _parentRunId?: string,
    _tags?: string[],
    fields?: HandleLLMNewTokenCallbackFields,
  ): void {
    const message = (fields?.chunk as { message?: BaseMessage } | undefined)?.message;
    const text = message ? textOf(message) : token;
    if (!text) return;
    this.streamed = true;
    this.text += text;
    this.onToken(text);
  }
}

/** The node's callbacks plus one handler, keeping whatever tracing the caller configured. */
export function withHandler(callbacks: Callbacks | undefined, handler: BaseCallbackHandler): Callbacks {
  if (!callbacks) return [handler];
  if (Array.isArray(callbacks)) return [...callbacks, handler];
  return callbacks.copy([handler]);
}
