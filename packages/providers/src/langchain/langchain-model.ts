import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ProviderConfig } from '../config-schema.js';
import { ProviderError } from '../errors.js';
import { importVendorPackage } from '../load-vendor.js';
import {
  type IntegrationPlaces,
  importIntegration,
  missingIntegration,
  ownInstallHas,
} from './integrations.js';

type ChatModelClass = new (fields: Record<string, unknown>) => BaseChatModel;

/**
 * The `langchain` vendor. `model: "provider:name"` goes through LangChain's `initChatModel`, so every provider it
 * knows works once its package is installed; `module` + `class` constructs that class with `options`. The config's
 * common fields come first and `options` override them.
 */
export async function createLangChainModel(
  config: ProviderConfig,
  places: IntegrationPlaces,
): Promise<BaseChatModel> {
  const fields = commonFields(config);
  if (config.module !== undefined && config.class !== undefined) {
    const { module } = await importIntegration(config.module, places);
    const Class = chatModelClass(module, config.class, config.module);
    const model = config.model === config.class ? {} : { model: config.model };
    return new Class({ ...model, ...fields, ...config.options });
  }
  const universal = await importVendorPackage('langchain', () => import('langchain/chat_models/universal'));
  const { provider, name } = splitModel(config.model, universal);
  const entry = universal.MODEL_PROVIDER_CONFIG[provider as keyof typeof universal.MODEL_PROVIDER_CONFIG];
  const params = { ...fields, ...config.options };
  // initChatModel imports the package from its own install; one only in the integrations folder is constructed here
  // the way initChatModel would (`new Class({ model, ...params })`).
  if (await ownInstallHas(entry.package)) {
    try {
      return (await universal.initChatModel(name, { modelProvider: provider, ...params })) as BaseChatModel;
    } catch (cause) {
      throw new ProviderError(
        'config-invalid',
        `langchain could not create ${config.model}: ${cause instanceof Error ? cause.message : String(cause)}`,
        { cause, field: 'model', vendor: 'langchain' },
      );
    }
  }
  if (!places.integrationsDir) throw missingIntegration(entry.package, places);
  const { module } = await importIntegration(entry.package, places);
  const Class = chatModelClass(module, entry.className, entry.package);
  return new Class({ model: name, ...params });
}

type Universal = typeof import('langchain/chat_models/universal');

function splitModel(model: string, universal: Universal): { provider: string; name: string } {
  const known = Object.keys(universal.MODEL_PROVIDER_CONFIG);
  const colon = model.indexOf(':');
  if (colon > 0 && known.includes(model.slice(0, colon)))
    return { provider: model.slice(0, colon), name: model.slice(colon + 1) };
  const inferred = universal._inferModelProvider(model);
  if (inferred) return { provider: inferred, name: model };
  throw new ProviderError(
    'config-invalid',
    `langchain: cannot tell the provider of model ${JSON.stringify(model)}; write it as "provider:model" with one of: ${known.join(', ')} (or use "module" and "class")`,
    { field: 'model', vendor: 'langchain' },
  );
}

function chatModelClass(module: Record<string, unknown>, name: string, from: string): ChatModelClass {
  const Class = Object.hasOwn(module, name) ? module[name] : undefined;
  if (typeof Class !== 'function') {
    const classes = Object.keys(module).filter((key) => /^Chat/.test(key));
    throw new ProviderError(
      'config-invalid',
      `${from} exports no class ${JSON.stringify(name)}${classes.length ? `; it has ${classes.join(', ')}` : ''}`,
      { field: 'class', vendor: 'langchain' },
    );
  }
  return Class as ChatModelClass;
}

/** The config's common fields in LangChain's names, only those that are set. */
function commonFields(config: ProviderConfig): Record<string, unknown> {
  const fields: Record<string, unknown> = { maxRetries: config.max_retries, timeout: config.timeout };
  if (config.temperature !== undefined) fields.temperature = config.temperature;
  if (config.max_tokens !== undefined) fields.maxTokens = config.max_tokens;
  if (config.api_key !== undefined) fields.apiKey = config.api_key;
  return fields;
}
