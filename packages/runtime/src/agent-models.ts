import type { ResolvedProviderConfig } from '@birdie/providers';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { LoadedConfig } from './config.js';
import { UsageError } from './errors.js';
import type { RuntimeIo } from './io.js';
import { TIER_NAMES, VENDOR_MODEL } from './model-spec.js';
import { integrationsDir } from './paths.js';
import { retryCallback } from './retry-notice.js';

export { isModelSpec, TIER_NAMES } from './model-spec.js';

/** A model as birdie names it everywhere (config, `/model`, agent files, usage): `vendor:model`. */
export interface NamedModel {
  model: BaseChatModel;
  name: string;
}

/**
 * The provider config a model name (a tier or `vendor:model`) resolves to, as `modelResolver` resolves it, without
 * making the model: `birdie doctor` checks the `model` setting with it. Every problem is a usage error.
 */
export async function resolveModelConfig(
  io: RuntimeIo,
  config: LoadedConfig,
  spec: string,
): Promise<ResolvedProviderConfig> {
  const { resolveProviderConfig, ProviderError, isModelTier } = await import('@birdie/providers');
  const match = VENDOR_MODEL.exec(spec);
  if (!match && !isModelTier(spec)) {
    throw new UsageError(
      `the model "${spec}" is neither a tier (fast, default, strong) nor "vendor:model" (e.g. "openai:gpt-4o-mini")`,
    );
  }
  try {
    const { file, saved } = config.layers;
    // Every layer the provider itself was resolved from (`--config`, LLM_PROVIDER_CONFIG, the environment, the
    // saved file), with the named vendor and model, or the tier, on top.
    return await resolveProviderConfig({
      env: io.env,
      ...(match
        ? { named: { vendor: match[1]!, model: match[2]! } }
        : { tier: spec as (typeof TIER_NAMES)[number] }),
      ...(file ? { file } : {}),
      ...(saved ? { saved } : {}),
      cwd: io.cwd,
    });
  } catch (error) {
    if (error instanceof ProviderError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/**
 * The one grammar for naming a model: a tier name (`fast`, `default`, `strong`: the provider section's `models`, the
 * key from the environment as for the provider itself) or `vendor:model`, resolved like the user's own provider with
 * that vendor and model on top (a key, a base URL or any other setting comes only from the user's environment and
 * config for that same vendor: an agent file can name nothing else). Every problem is a usage error.
 */
export function modelResolver(
  io: RuntimeIo,
  config: LoadedConfig,
): (spec: string, tuning?: { temperature?: number; maxRetries?: number }) => Promise<NamedModel> {
  return async (spec, tuning) => {
    const resolved = await resolveModelConfig(io, config, spec);
    const { createChatModel, probeContextWindow, ProviderError } = await import('@birdie/providers');
    try {
      // An agent file's `temperature` and `max_retries` go on top of the user's settings for that provider.
      const settings = {
        ...resolved.config,
        ...(tuning?.temperature !== undefined ? { temperature: tuning.temperature } : {}),
        ...(tuning?.maxRetries !== undefined ? { max_retries: tuning.maxRetries } : {}),
      };
      const model = await createChatModel(settings, {
        integrationsDir: integrationsDir(io.env),
        cwd: io.cwd,
        onRetry: retryCallback(settings),
      });
      await probeContextWindow(model, settings);
      return { model, name: `${resolved.config.vendor}:${resolved.config.model}` };
    } catch (error) {
      if (error instanceof ProviderError) throw new UsageError(error.message, { cause: error });
      throw error;
    }
  };
}

/** The tiers `switch_model` offers: those the config defines, and `default` with them (it always resolves). */
export function routerTiers(config: LoadedConfig): string[] {
  const defined = config.provider.tiers;
  if (defined.length === 0) return [];
  return TIER_NAMES.filter((t) => t === 'default' || defined.includes(t));
}
