import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ProviderConfig } from './config-schema.js';
import { applyModelProfile } from './context-window.js';
import { describeProvider } from './describe.js';
import { anthropicStreamUsage, withProviderErrors } from './error-mapping.js';
import type { ErrorContext } from './http-errors.js';
import { importVendorPackage } from './load-vendor.js';
import { createRetryingFetch, type RetryEvent } from './retry.js';
import { loadScript } from './scripted/load-script.js';
import { ScriptedChatModel } from './scripted/scripted-model.js';
import { VENDORS } from './vendors.js';

export interface CreateChatModelOptions {
  /**
   * `langchain` vendor: the user's folder of added LangChain integrations (an npm project; the CLI passes
   * `~/.birdie/integrations`), searched after birdie's own install. A missing package's message names the command
   * that installs it there.
   */
  integrationsDir?: string;
  /** `acp` vendor: where the agent program starts (default `process.cwd()`); each session gets the turn's folder. */
  cwd?: string;
  /** Called before each retry of a 429/5xx/529 answer (e.g. to show "rate limited, retrying in 2 s"). */
  onRetry?: (event: RetryEvent) => void;
  /** Longest wait between retries; a longer Retry-After ends the retries. Default 30 s. */
  maxRetryDelayMs?: number;
  /** First backoff step without Retry-After (doubles per attempt). Default 500 ms. */
  baseRetryDelayMs?: number;
  /** The fetch the vendor clients use underneath the retry layer (default: global fetch). */
  fetch?: typeof fetch;
}

/**
 * The chat model for a resolved config: the vendor's own LangChain class, imported only now. HTTP retries
 * (429/5xx/529, Retry-After) happen in one shared fetch layer; failures surface as ProviderErrors. A LangChain
 * `BaseChatModel` given instead of a config is returned as it is.
 */
export async function createChatModel(
  config: ProviderConfig | BaseChatModel,
  options: CreateChatModelOptions = {},
): Promise<BaseChatModel> {
  if (isChatModel(config)) return config;
  // Every model knows its input limit (LangChain's profile, else the vendor's default): compaction budgets by it.
  return applyModelProfile(await buildChatModel(config, options), config);
}

async function buildChatModel(
  config: ProviderConfig,
  options: CreateChatModelOptions,
): Promise<BaseChatModel> {
  const info = VENDORS[config.vendor];
  if (config.vendor === 'acp') {
    const { AcpChatModel } = await importVendorPackage(
      '@agentclientprotocol/sdk',
      () => import('./acp/acp-model.js'),
    );
    return new AcpChatModel(config, options.cwd ? { cwd: options.cwd } : {});
  }
  if (config.vendor === 'langchain') {
    const { createLangChainModel } = await import('./langchain/langchain-model.js');
    return createLangChainModel(
      config,
      options.integrationsDir ? { integrationsDir: options.integrationsDir } : {},
    );
  }
  if (config.vendor === 'scripted') {
    const script = await loadScript(config.script ?? '');
    return new ScriptedChatModel(script, {
      model: config.model,
      maxRetries: config.max_retries,
      maxRetryDelayMs: options.maxRetryDelayMs,
      onRetry: options.onRetry,
      source: config.script,
    });
  }
  const ctx: ErrorContext = {
    vendor: config.vendor,
    apiKey: config.api_key,
    envVar: info.apiKeyEnv[0],
    baseUrl: describeProvider(config).base_url,
    maxRetries: config.max_retries,
    timeout: config.timeout,
  };
  const retrying = (base: typeof globalThis.fetch = options.fetch ?? globalThis.fetch) =>
    createRetryingFetch(
      {
        maxRetries: config.max_retries,
        baseDelayMs: options.baseRetryDelayMs,
        maxDelayMs: options.maxRetryDelayMs,
        onRetry: options.onRetry,
      },
      base,
    );
  const fetch = retrying();
  // Retries belong to the fetch layer above; LangChain's own caller would multiply them.
  const common = { model: config.model, temperature: config.temperature, maxRetries: 0 };
  switch (config.vendor) {
    case 'openai': {
      const { ChatOpenAI } = await importVendorPackage(
        '@langchain/openai',
        () => import('@langchain/openai'),
      );
      return new (withProviderErrors(ChatOpenAI, ctx))({
        ...common,
        // A placeholder for keyless OpenAI-compatible servers; also stops the client reading process.env.
        apiKey: config.api_key ?? 'not-needed',
        maxTokens: config.max_tokens,
        timeout: config.timeout,
        streamUsage: true,
        configuration: { baseURL: config.base_url, fetch },
      });
    }
    case 'azure': {
      const { AzureChatOpenAI } = await importVendorPackage(
        '@langchain/openai',
        () => import('@langchain/openai'),
      );
      return new (withProviderErrors(AzureChatOpenAI, ctx))({
        ...common,
        azureOpenAIApiKey: config.api_key,
        azureOpenAIEndpoint: config.base_url,
        azureOpenAIApiDeploymentName: config.model,
        azureOpenAIApiVersion: config.api_version,
        maxTokens: config.max_tokens,
        timeout: config.timeout,
        streamUsage: true,
        configuration: { fetch },
      });
    }
    case 'anthropic': {
      const { ChatAnthropic } = await importVendorPackage(
        '@langchain/anthropic',
        () => import('@langchain/anthropic'),
      );
      return new (withProviderErrors(ChatAnthropic, ctx, anthropicStreamUsage))({
        ...common,
        apiKey: config.api_key,
        anthropicApiUrl: config.base_url,
        ...(config.max_tokens === undefined ? {} : { maxTokens: config.max_tokens }),
        clientOptions: { fetch, timeout: config.timeout },
      });
    }
    case 'ollama': {
      const { ChatOllama } = await importVendorPackage(
        '@langchain/ollama',
        () => import('@langchain/ollama'),
      );
      return new (withProviderErrors(ChatOllama, ctx))({
        ...common,
        baseUrl: config.base_url,
        numPredict: config.max_tokens,
        fetch: retrying(withTimeout(options.fetch ?? globalThis.fetch, config.timeout)),
      });
    }
    case 'mistral': {
      const { ChatMistralAI } = await importVendorPackage(
        '@langchain/mistralai',
        () => import('@langchain/mistralai'),
      );
      return new (withProviderErrors(ChatMistralAI, ctx))({
        ...common,
        // No fetch hook in this client: it keeps its own retries.
        maxRetries: config.max_retries,
        apiKey: config.api_key,
        serverURL: config.base_url,
        maxTokens: config.max_tokens,
      });
    }
    case 'gemini': {
      const { ChatGoogleGenerativeAI } = await importVendorPackage(
        '@langchain/google-genai',
        () => import('@langchain/google-genai'),
      );
      return new (withProviderErrors(ChatGoogleGenerativeAI, ctx))({
        ...common,
        // No fetch hook in this client: LangChain's caller retries (it honours Retry-After on 429).
        maxRetries: config.max_retries,
        apiKey: config.api_key,
        baseUrl: config.base_url,
        apiVersion: config.api_version,
        maxOutputTokens: config.max_tokens,
      });
    }
  }
}

/** A LangChain chat model instance (duck-typed: another copy of `@langchain/core` may have made it). */
export function isChatModel(value: unknown): value is BaseChatModel {
  const model = value as { invoke?: unknown; _llmType?: unknown; _generate?: unknown } | null;
  return (
    model !== null &&
    typeof model === 'object' &&
    typeof model.invoke === 'function' &&
    typeof model._llmType === 'function' &&
    typeof model._generate === 'function'
  );
}

/** Ends what a model keeps running (the `acp` vendor's agent program); nothing for any other model. */
export async function closeChatModel(model: BaseChatModel): Promise<void> {
  const close = (model as { close?: unknown }).close;
  if (typeof close === 'function') await close.call(model);
}

/** Ollama's client has no timeout: abort when the response headers take longer than `ms`. */
function withTimeout(fetch: typeof globalThis.fetch, ms: number): typeof globalThis.fetch {
  return async (input, init) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('timeout', 'TimeoutError')), ms);
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    try {
      return await fetch(input, { ...init, signal });
    } finally {
      clearTimeout(timer);
    }
  };
}
