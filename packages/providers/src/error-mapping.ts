import type { ChatGenerationChunk } from '@langchain/core/outputs';
import { type ErrorContext, toProviderError } from './http-errors.js';

/** Per-stream rewrite of chunks (a fresh function for each call, so it may keep state). */
export type ChunkFixer = () => (chunk: ChatGenerationChunk) => ChatGenerationChunk;

/**
 * Subclasses a vendor's chat model so the two methods every call goes through (`_generate`, and
 * `_streamResponseChunks` for streams) throw ProviderErrors, optionally correcting streamed chunks.
 * Everything else (bindTools, withStructuredOutput, serialisation names) is the vendor's own.
 */
export function withProviderErrors<C>(Base: C, ctx: ErrorContext, fixChunks?: ChunkFixer): C {
  const Model = Base as unknown as new (...args: any[]) => any;
  class WithProviderErrors extends Model {
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
  }
  return WithProviderErrors as unknown as C;
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
