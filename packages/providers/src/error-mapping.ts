import type { ChatGenerationChunk } from '@langchain/core/outputs';
import { type ErrorContext, toProviderError } from './http-errors.js';

/** Per-stream rewrite of chunks (a fresh function for each call, so it may keep state). */
export type ChunkFixer = () => (chunk: ChatGenerationChunk) => ChatGenerationChunk;

/** Marks the classes made here, so a copy already mapped is left alone. */
const MAPPED = Symbol('birdie.providerErrors');

/**
 * Subclasses a vendor's chat model so the methods every call goes through (`_generate`, `_streamResponseChunks` for
 * streams, `_streamChatModelEvents` for event streams) throw ProviderErrors, optionally correcting streamed chunks.
 * Everything else (bindTools, withStructuredOutput, serialisation names) is the vendor's own.
 */
export function withProviderErrors<C>(Base: C, ctx: ErrorContext, fixChunks?: ChunkFixer): C {
  const classes = new WeakMap<object, new (...args: any[]) => any>();
  const mapped = (Model: new (...args: any[]) => any) => {
    const known = classes.get(Model);
    if (known) return known;
    class WithProviderErrors extends Model {
      get [MAPPED]() {
        return true;
      }

      async _generate(...args: unknown[]) {
        try {
          return await super._generate(...args);
        } catch (error) {
          throw toProviderError(error, ctx);
        }
      }

      async *_streamResponseChunks(...args: unknown[]) {
        const fix = fixChunks?.();
        try {
          for await (const chunk of super._streamResponseChunks(...args)) yield fix ? fix(chunk) : chunk;
        } catch (error) {
          throw toProviderError(error, ctx);
        }
      }

      // ChatOpenAI streams events through its own delegate, not `_streamResponseChunks`, when a handler asks for them.
      async *_streamChatModelEvents(...args: unknown[]) {
        try {
          yield* super._streamChatModelEvents(...args);
        } catch (error) {
          throw toProviderError(error, ctx);
        }
      }

      /**
       * Some vendors' `withConfig` (ChatOpenAI's, which `bindTools` uses) returns a new instance of a class of their
       * own (AzureChatOpenAI's is a plain ChatOpenAI), without these overrides: the copy gets them too.
       */
      withConfig(...args: unknown[]) {
        const copy = super.withConfig(...args);
        if (typeof copy?._generate === 'function' && !copy[MAPPED])
          Object.setPrototypeOf(copy, mapped(copy.constructor).prototype);
        return copy;
      }
    }
    classes.set(Model, WithProviderErrors);
    return WithProviderErrors;
  };
  return mapped(Base as unknown as new (...args: any[]) => any) as unknown as C;
}

/**
 * Anthropic streams report output tokens twice: `message_start` carries the count so far and `message_delta`
 * the cumulative count, and @langchain/anthropic adds both. Zero the first so the sum is the real total.
 */
export const anthropicStreamUsage: ChunkFixer = () => {
  let seenStart = false;
  return (chunk) => {
    const message = chunk.message as { usage_metadata?: { input_tokens: number; output_tokens: number } };
    const usage = message.usage_metadata;
    if (!usage || seenStart) return chunk;
    seenStart = true;
    message.usage_metadata = { ...usage, output_tokens: 0, total_tokens: usage.input_tokens } as typeof usage;
    return chunk;
  };
};
