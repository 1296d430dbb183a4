import type { BaseChatModel } from '@langchain/core/language_models/chat_models';

/** The input limit assumed for a model whose LangChain profile has none (and no `contextWindow` option). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** Room kept for the answer when the profile names no output limit. */
export const DEFAULT_ANSWER_ROOM = 4096;

export interface ModelLimits {
  /** Input limit, tokens. */
  window: number;
  /** Tokens kept free for the answer: the profile's output limit, at most a quarter of the window. */
  reserve: number;
}

/** A model's limits from its LangChain profile (`maxInputTokens`, `maxOutputTokens`), `window` overriding the first. */
export function modelLimits(model: BaseChatModel, window?: number): ModelLimits {
  let profile: { maxInputTokens?: unknown; maxOutputTokens?: unknown } = {};
  try {
    profile = (model as { profile?: typeof profile }).profile ?? {};
  } catch {
    // a model whose profile getter fails has none
  }
  const input =
    window ??
    (typeof profile.maxInputTokens === 'number' && profile.maxInputTokens > 0
      ? profile.maxInputTokens
      : DEFAULT_CONTEXT_WINDOW);
  const output =
    typeof profile.maxOutputTokens === 'number' && profile.maxOutputTokens > 0
      ? profile.maxOutputTokens
      : DEFAULT_ANSWER_ROOM;
  return { window: input, reserve: Math.min(output, Math.floor(input / 4)) };
}
