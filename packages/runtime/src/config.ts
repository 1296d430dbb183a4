import type { ConfigFile, ProviderError, ResolvedProviderConfig } from '@birdie/providers';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { configFile, resolveFrom } from './paths.js';
import { readRegularTextSync } from './regular-file.js';
import type { SettingKey, Settings } from './settings.js';

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

/**
 * Thrown when the provider section of the saved `~/.birdie/config.json` cannot be used (an empty key, as older
 * versions saved; a misspelt vendor or field): `birdie setup` rewrites that section, so the message says to run it,
 * and a start of the REPL in a terminal runs it.
 */
export class SavedProviderError extends UsageError {
  /** The problem as the config check worded it, without the way out. */
  readonly problem: string;
  constructor(problem: string, options?: { cause?: unknown }) {
    super(`${problem}; run \`birdie setup\` to set it again`, options);
    this.name = 'SavedProviderError';
    this.problem = problem;
  }
}

export function isSavedProviderError(error: unknown): error is SavedProviderError {
  return error instanceof SavedProviderError;
}

/**
 * A `ProviderError` met reading the config files, as the usage error that ends the command (exit 2). One in what
 * `birdie setup` rewrites (the saved file, outside its settings section) is a `SavedProviderError`.
 */
export function configFileProblem(io: RuntimeIo, error: ProviderError): UsageError {
  const setupFixes =
    error.file === configFile(io.env) &&
    (error.code === 'config-invalid' || error.code === 'unknown-vendor') &&
    error.field !== 'settings';
  return setupFixes
    ? new SavedProviderError(error.message, { cause: error })
    : new UsageError(error.message, { cause: error });
}

/** What `loadConfig` returns: the provider and the user settings, each value with where it came from. */
export interface LoadedConfig {
  /** From `@birdie/providers`: `config`, `sources` (field → `file …` / `inline LLM_PROVIDER_CONFIG` / `env X` / `default`), `ignored`. */
  provider: ResolvedProviderConfig;
  /** The settings sections of `--config FILE` and `~/.birdie/config.json`, merged key by key over the defaults. */
  settings: Settings;
  /** Where each setting came from: `file /abs/config.json` or `default`. */
  sources: Record<SettingKey, string>;
  /** The files read, highest first. */
  files: string[];
  /** The provider layers as read, to resolve model tiers and `vendor:model` names the same way later. */
  layers: { file?: ConfigFile; saved?: ConfigFile };
}

/** `--config FILE` as an absolute path, if given. */
export function explicitConfigPath(io: RuntimeIo, values: Flags): string | undefined {
  if (typeof values.config !== 'string') return undefined;
  // Resolved, an empty value is the working folder, and the error would blame that folder.
  if (values.config.trim() === '')
    throw new UsageError('--config needs a file, and was given an empty value');
  return resolveFrom(io.cwd, values.config);
}

/**
 * Cheap (no imports): whether the saved `~/.birdie/config.json` has a provider section. A file that cannot be read
 * or parsed counts as configured, so that loading it explains the problem instead of setup replacing it.
 */
export function savedProviderExists(io: RuntimeIo): boolean {
  let text: string;
  try {
    text = readRegularTextSync(configFile(io.env));
  } catch (error) {
    // A link to nothing counts as no file here: first-run setup replaces such a link (a planted one must never be
    // written through), where every other reader refuses it.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  try {
    const value: unknown = JSON.parse(text.replace(/^\ufeff/, ''));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return true;
    const top = value as Record<string, unknown>;
    if ('provider' in top || 'settings' in top) return top.provider !== undefined;
    return Object.keys(top).length > 0;
  } catch {
    return true;
  }
}

/** Cheap (no imports): true when no file, variable or inline JSON names a provider at all. */
export function nothingConfigured(io: RuntimeIo, values: Flags): boolean {
  const e = io.env;
  return (
    !explicitConfigPath(io, values) &&
    !savedProviderExists(io) &&
    !e.LLM_PROVIDER_CONFIG &&
    !e.LLM_VENDOR &&
    !e.LLM_MODEL &&
    !e.OPENAI_API_KEY
  );
}

/**
 * Reads and checks the config, highest first: `--config FILE` > `LLM_PROVIDER_CONFIG` > environment variables >
 * `~/.birdie/config.json` > defaults; provider values are used only from layers of the chosen vendor (see
 * `@birdie/providers`). Settings come from the two files' `settings` sections. Every problem is a usage error
 * (exit 2) whose message says what to change and, for a file, where.
 */
export async function loadConfig(io: RuntimeIo, values: Flags): Promise<LoadedConfig> {
  const [{ resolveProviderConfig, ProviderError }, { mergeSettings }, { readConfigFiles }] =
    await Promise.all([
      import('@birdie/providers'),
      import('./settings-schema.js'),
      import('./settings-files.js'),
    ]);
  try {
    const { file, saved, files } = await readConfigFiles(io, explicitConfigPath(io, values));
    const { settings, sources } = mergeSettings(files);
    await (await import('./permission-rules.js')).checkPermissionPatterns(files);
    const provider = await resolveProviderConfig({ env: io.env, file, saved, cwd: io.cwd });
    return {
      provider,
      settings,
      sources,
      files: files.map((f) => f.path),
      layers: { ...(file ? { file } : {}), ...(saved ? { saved } : {}) },
    };
  } catch (error) {
    if (error instanceof ProviderError) {
      if (error.code === 'missing-api-key' && nothingConfigured(io, values)) throw new NoProviderError();
      throw configFileProblem(io, error);
    }
    throw error;
  }
}

/** `vendor · model` for the banner and the status line. */
export function providerLabel(resolved: ResolvedProviderConfig): string {
  return `${resolved.config.vendor} · ${resolved.config.model}`;
}
