import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ProviderConfig } from './config-schema.js';
import type { Vendor } from './vendors.js';

/**
 * The input limit (tokens) assumed for a model when nothing better is known: neither the LangChain integration's
 * model profile nor the server (Ollama) says. Ollama's is the server's own default `num_ctx`; an ACP agent keeps its
 * own history (birdie sends it only the new text), so its limit never makes birdie compact.
 */
export const DEFAULT_CONTEXT_WINDOWS: Readonly<Record<Vendor, number>> = Object.freeze({
  openai: 128_000,
  azure: 128_000,
  anthropic: 200_000,
  mistral: 128_000,
  gemini: 1_000_000,
  ollama: 4_096,
  scripted: 128_000,
  acp: 1_000_000,
  langchain: 128_000,
});

/** A model's input limit and where it comes from. */
export interface ContextWindow {
  tokens: number;
  /** `profile`: the LangChain integration's model profile; `server`: asked the server (Ollama); `default`: the vendor's default. */
  source: 'profile' | 'server' | 'default';
}

const known = new WeakMap<object, ContextWindow>();

function nativeProfile(model: BaseChatModel): Record<string, unknown> {
  try {
    const profile = (model as { profile?: unknown }).profile;
    return profile && typeof profile === 'object' ? { ...(profile as Record<string, unknown>) } : {};
  } catch {
    return {};
  }
}

function pin(model: BaseChatModel, window: ContextWindow, base: Record<string, unknown>, maxTokens?: number) {
  known.set(model, window);
  const profile = Object.freeze({
    ...base,
    maxInputTokens: window.tokens,
    ...(maxTokens !== undefined ? { maxOutputTokens: maxTokens } : {}),
  });
  // The integration's `profile` getter is per model name; this one also knows the vendor's default, the server's
  // answer and the configured `max_tokens`, so an agent reading LangChain's profile needs nothing else.
  Object.defineProperty(model, 'profile', { configurable: true, enumerable: false, get: () => profile });
}

/**
 * Gives a model made from `config` a LangChain `profile` whose `maxInputTokens` is always set (the integration's
 * profile, else the vendor's default) and whose `maxOutputTokens` is the configured `max_tokens` when there is one.
 */
export function applyModelProfile(model: BaseChatModel, config: ProviderConfig): BaseChatModel {
  const base = nativeProfile(model);
  const fromProfile = typeof base.maxInputTokens === 'number' && base.maxInputTokens > 0;
  pin(
    model,
    fromProfile
      ? { tokens: base.maxInputTokens as number, source: 'profile' }
      : { tokens: DEFAULT_CONTEXT_WINDOWS[config.vendor], source: 'default' },
    base,
    config.max_tokens,
  );
  return model;
}

/** The input limit of a model `createChatModel` made (and `probeContextWindow` refined); else its profile's, if any. */
export function contextWindowOf(model: BaseChatModel): ContextWindow | undefined {
  const pinned = known.get(model);
  if (pinned) return pinned;
  const tokens = nativeProfile(model).maxInputTokens;
  return typeof tokens === 'number' && tokens > 0 ? { tokens, source: 'profile' } : undefined;
}

/** `num_ctx N` in the `parameters` text of Ollama's `/api/show` answer. */
function numCtx(body: unknown): number | undefined {
  const parameters = (body as { parameters?: unknown } | null)?.parameters;
  if (typeof parameters !== 'string') return undefined;
  const match = /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters);
  const value = match ? Number(match[1]) : Number.NaN;
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Asks the server for the model's context length where the vendor has a way (Ollama: `num_ctx` from `POST
 * /api/show`; a model without one runs with the server's default, 4,096) and pins it on the model's profile. Other
 * vendors answer at once with what `createChatModel` found. Never throws: an unreachable server leaves the default.
 */
export async function probeContextWindow(
  model: BaseChatModel,
  config: ProviderConfig,
  options: { fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<ContextWindow> {
  const current = contextWindowOf(model) ?? {
    tokens: DEFAULT_CONTEXT_WINDOWS[config.vendor],
    source: 'default',
  };
  if (config.vendor !== 'ollama' || !config.base_url) return current;
  const fetcher = options.fetch ?? globalThis.fetch;
  try {
    const response = await fetcher(`${config.base_url.replace(/\/+$/, '')}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: config.model }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 3000),
    });
    if (!response.ok) return current;
    const tokens = numCtx(await response.json());
    if (tokens === undefined) return current;
    const window: ContextWindow = { tokens, source: 'server' };
    pin(model, window, nativeProfile(model), config.max_tokens);
    return window;
  } catch {
    return current;
  }
}
