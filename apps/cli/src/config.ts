import { existsSync } from 'node:fs';
import type { ResolvedProviderConfig } from '@birdie/providers';
import type { Values } from './argv.js';
import { type Io, UsageError } from './io.js';
import { configFile, resolveFrom } from './paths.js';

/** Thrown when nothing at all names a provider: the REPL offers setup, everything else explains what to set. */
export class NoProviderError extends UsageError {
  constructor() {
    super(
      'no model provider configured. Set LLM_VENDOR (openai, anthropic, gemini, mistral, azure, ollama or scripted), ' +
        'LLM_MODEL and the vendor key (e.g. OPENAI_API_KEY or ANTHROPIC_API_KEY); or pass --config FILE; or set ' +
        'LLM_PROVIDER_CONFIG=\'{"vendor":…}\'; or run `birdie` once in a terminal to set it up.',
    );
    this.name = 'NoProviderError';
  }
}

/** `--config FILE`, else `~/.birdie/config.json` when first-run setup wrote one. */
export function configPath(io: Io, values: Values): string | undefined {
  if (typeof values.config === 'string') return resolveFrom(io.cwd, values.config);
  const saved = configFile(io.env);
  return existsSync(saved) ? saved : undefined;
}

/** Cheap (no imports): true when no file, variable or inline JSON names a provider at all. */
export function nothingConfigured(io: Io, values: Values): boolean {
  const e = io.env;
  return (
    !configPath(io, values) && !e.LLM_PROVIDER_CONFIG && !e.LLM_VENDOR && !e.LLM_MODEL && !e.OPENAI_API_KEY
  );
}

/**
 * Precedence (highest first): LLM_PROVIDER_CONFIG, the config file, environment variables, defaults. Every provider
 * problem is a usage/config error (exit 2) whose message says what to change.
 */
export async function resolveProvider(io: Io, values: Values): Promise<ResolvedProviderConfig> {
  const { resolveProviderConfig, ProviderError } = await import('@birdie/providers');
  const file = configPath(io, values);
  try {
    return await resolveProviderConfig({ env: io.env, ...(file ? { file } : {}), cwd: io.cwd });
  } catch (error) {
    if (error instanceof ProviderError) {
      if (error.code === 'missing-api-key' && nothingConfigured(io, values)) throw new NoProviderError();
      throw new UsageError(error.message, { cause: error });
    }
    throw error;
  }
}

/** `vendor · model` for the banner and the status line. */
export function providerLabel(resolved: ResolvedProviderConfig): string {
  return `${resolved.config.vendor} · ${resolved.config.model}`;
}
