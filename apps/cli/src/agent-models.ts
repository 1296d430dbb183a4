import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { LoadedConfig } from './config.js';
import { type Io, UsageError } from './io.js';

const VENDOR_MODEL = /^([a-z][a-z0-9-]*):(\S.*)$/;

/**
 * The chat model an agent file names with `model: "vendor:model"`. It is resolved like the user's own provider, with
 * the agent's vendor and model on top: a key, a base URL or any other setting comes only from the user's environment
 * and config for that same vendor (an agent file can name nothing else). Tier names arrive with model tiers in the
 * settings; until then they are refused with the way to write the model instead.
 */
export function agentModels(io: Io, config: LoadedConfig): (spec: string) => Promise<BaseChatModel> {
  return async (spec) => {
    const match = VENDOR_MODEL.exec(spec);
    if (!match) {
      throw new UsageError(
        `an agent asks for the model "${spec}", which is not "vendor:model" (model tiers are not configured); write it as e.g. "openai:gpt-4o-mini"`,
      );
    }
    const { resolveProviderConfig, createChatModel } = await import('@birdie/providers');
    const [vendor, model] = [match[1]!, match[2]!];
    const resolved = await resolveProviderConfig({
      env: io.env,
      inline: JSON.stringify({ vendor, model }),
      ...(config.files[0] ? { saved: config.files[0] } : {}),
      cwd: io.cwd,
    });
    return createChatModel(resolved.config);
  };
}
