import { type ErrorContext, toProviderError } from './http-errors.js';

/**
 * Subclasses a vendor's chat model so the two methods every call goes through (`_generate`, and
 * `_streamResponseChunks` for streams) throw ProviderErrors. Everything else (bindTools, withStructuredOutput,
 * serialisation names) is the vendor's own.
 */
export function withProviderErrors<C>(Base: C, ctx: ErrorContext): C {
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
      try {
        yield* super._streamResponseChunks(...args);
      } catch (error) {
        throw toProviderError(error, ctx);
      }
    }
  }
  return WithProviderErrors as unknown as C;
}
