import { dirname, isAbsolute, resolve } from 'node:path';
import { type ConfigFile, readConfigFile } from './config-file.js';
import {
  CONFIG_FIELDS,
  type ConfigField,
  type ConfigLayer,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  MODEL_TIERS,
  type ModelTier,
  type ProviderConfig,
  type TierLayer,
} from './config-schema.js';
import { genericEnvLayer, type Layer, otherVendorKeys, vendorEnvLayer } from './env-layer.js';
import { ProviderError } from './errors.js';
import { parseJson } from './json-position.js';
import { checkFieldValue, checkProviderObject } from './provider-layer.js';
import { isVendor, VENDOR_NAMES, VENDORS, type Vendor } from './vendors.js';

export { ENV_VARS } from './env-layer.js';

/** The vendor when no layer names one. */
export const DEFAULT_VENDOR: Vendor = 'openai';

export interface ResolveProviderConfigInput {
  /** Usually `process.env`. Supplies LLM_* variables, LLM_PROVIDER_CONFIG and the vendor's own variables. */
  env: Record<string, string | undefined>;
  /** `--config FILE`, the highest layer: a path, or a file already read with `readConfigFile`. */
  file?: string | ConfigFile;
  /** Inline JSON with provider fields; defaults to `env.LLM_PROVIDER_CONFIG`. Below `file`, above the environment. */
  inline?: string;
  /** The user's saved config (e.g. `~/.birdie/config.json`), below the environment: a path or a read file. */
  saved?: string | ConfigFile;
  /** Base for relative `script` paths outside a file (default: process.cwd()). */
  cwd?: string;
  /**
   * A model tier (`provider.models.<tier>` of the highest file or inline JSON that defines it) to resolve: its fields
   * become the highest layer. Default `default`, whose definition is optional (without one, the provider section
   * alone); another tier that no layer defines is `unknown-tier`. `null`: no tier at all (a model named as
   * `vendor:model` on top, which `models.default` must not replace).
   */
  tier?: ModelTier | null;
  /**
   * A model named as `vendor:model` (`/model`, an agent file, the `model` setting): the highest layer, in place of any
   * tier. Every other layer stays where it is, so that vendor's key, base URL and other settings come from the user's
   * own file, inline JSON and environment, as for the provider itself (and nothing of another vendor's).
   */
  named?: { vendor: string; model: string };
}

/** A value that was set but not used because its layer belongs to another vendor (the value itself is not kept). */
export interface IgnoredValue {
  field: ConfigField;
  /** Where it was set, in the words of `sources`: `file /home/me/.birdie/config.json`, `env LLM_MODEL`. */
  source: string;
  /** The vendor its layer belongs to. */
  vendor: string;
}

export interface ResolvedProviderConfig {
  config: ProviderConfig;
  /**
   * Where each set field (a ConfigField) came from: `file /abs/path`, `inline LLM_PROVIDER_CONFIG`, `env LLM_MODEL`,
   * `env OPENAI_API_KEY`, `default`. Fields without a value are absent. Never a key.
   */
  sources: Record<string, string>;
  /** Values of layers that belong to another vendor, left out so that nothing crosses vendors. */
  ignored: IgnoredValue[];
  /** The tiers the layers define under `models` (`fast`, `default`, `strong`), in that order. */
  tiers: ModelTier[];
}

const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/**
 * Merges the layers, highest first: `file` (--config) > inline JSON > environment > `saved` file > defaults, field
 * by field, with one rule on top: **a layer is used only if it belongs to the chosen vendor.** The vendor is the one
 * named by the highest layer that names one (default openai). A layer that names no vendor belongs to the vendor of
 * the layers below it (or the default); a vendor's own variables (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, …) belong to
 * that vendor. So a key, a model or a base URL is never sent to a vendor it was not written for.
 */
export async function resolveProviderConfig(
  input: ResolveProviderConfigInput,
): Promise<ResolvedProviderConfig> {
  const cwd = input.cwd ?? process.cwd();
  const { env } = input;
  const layers: Layer[] = [];
  // Where tiers are defined, highest first: each source's `models`, positioned for messages.
  const tierSources: Array<{ models: NonNullable<ConfigLayer['models']>; source: string; baseDir: string }> =
    [];
  if (input.file !== undefined) {
    const file = await asConfigFile(input.file, cwd);
    layers.push(fileLayer(file));
    if (file.provider.models)
      tierSources.push({
        models: file.provider.models,
        source: `file ${file.path}`,
        baseDir: dirname(file.path),
      });
  }
  const inlineText = input.inline ?? env.LLM_PROVIDER_CONFIG;
  if (inlineText !== undefined && inlineText.trim() !== '') {
    const where = input.inline !== undefined ? 'inline config' : 'inline LLM_PROVIDER_CONFIG';
    const { layer, models } = inlineLayer(inlineText, where, cwd);
    layers.push(layer);
    if (models) tierSources.push({ models, source: 'inline LLM_PROVIDER_CONFIG', baseDir: cwd });
  }
  const generic = genericEnvLayer(env, cwd);
  layers.push(generic);
  if (input.saved !== undefined) {
    const saved = await asConfigFile(input.saved, cwd);
    layers.push(fileLayer(saved));
    if (saved.provider.models)
      tierSources.push({
        models: saved.provider.models,
        source: `file ${saved.path}`,
        baseDir: dirname(saved.path),
      });
  }
  const tiers = MODEL_TIERS.filter((t) => tierSources.some((s) => s.models[t] !== undefined));
  const tier = input.named ? null : input.tier === undefined ? 'default' : input.tier;
  const defining = tier === null ? undefined : tierSources.find((s) => s.models[tier] !== undefined);
  if (tier !== null && defining)
    layers.unshift(tierLayer(defining.models[tier]!, tier, defining.source, defining.baseDir));
  else if (tier !== null && tier !== 'default') {
    throw new ProviderError(
      'unknown-tier',
      `No model tier "${tier}": define it in the provider section of your config file, e.g. "models": { "${tier}": { "model": "…" } }${tiers.length ? ` (defined: ${tiers.join(', ')})` : ''}`,
      { field: `models.${tier}` },
    );
  }

  if (input.named) layers.unshift(namedLayer(input.named, cwd));

  // Each layer belongs to the vendor it names, else to the one the layers below it belong to.
  const belongsTo = new Map<Layer, string>();
  let below: string = DEFAULT_VENDOR;
  for (const layer of [...layers].reverse()) {
    below = layer.vendor ?? below;
    belongsTo.set(layer, below);
  }
  const namer = layers.find((layer) => layer.vendor !== undefined);
  namer?.check?.('vendor', namer.vendor);
  const chosen = namer?.vendor ?? DEFAULT_VENDOR;
  if (!isVendor(chosen)) {
    throw new ProviderError(
      'unknown-vendor',
      `Unknown vendor ${JSON.stringify(chosen)}; use one of: ${VENDOR_NAMES.join(', ')}`,
      {
        field: 'vendor',
      },
    );
  }
  const vendor: Vendor = chosen;
  const sources: Partial<Record<ConfigField, string>> = {
    vendor: namer ? namer.source('vendor') : 'default',
  };

  const used: Layer[] = [];
  const ignored: IgnoredValue[] = [];
  for (const layer of layers) {
    const owner = belongsTo.get(layer)!;
    if (owner === vendor) used.push(layer);
    else {
      for (const field of Object.keys(layer.values) as ConfigField[])
        ignored.push({ field, source: layer.source(field), vendor: owner });
    }
    // The vendor's own variables rank with the environment, just under the generic LLM_* ones.
    if (layer === generic) used.push(vendorEnvLayer(env, vendor, cwd));
  }

  const config: ProviderConfig = {
    vendor,
    model: '',
    timeout: DEFAULT_TIMEOUT_MS,
    max_retries: DEFAULT_MAX_RETRIES,
  };
  const target = config as unknown as Record<string, unknown>;
  for (const field of CONFIG_FIELDS) {
    if (field === 'vendor') continue;
    const layer = used.find((candidate) => candidate.values[field] !== undefined);
    if (!layer) continue;
    let value: unknown = layer.values[field];
    layer.check?.(field, value);
    if (field === 'script' && typeof value === 'string' && !isAbsolute(value))
      value = resolve(layer.baseDir, value);
    // A program or module named by a relative path is the one next to the file that names it.
    if ((field === 'command' || field === 'module') && typeof value === 'string' && isRelativePath(value))
      value = resolve(layer.baseDir, value);
    target[field] = value;
    sources[field] = layer.source(field);
  }

  applyDefaults(config, sources);
  checkVendorRequirements(config, sources, ignored, env);
  return { config, sources: sources as Record<string, string>, ignored, tiers };
}

function applyDefaults(config: ProviderConfig, sources: Partial<Record<ConfigField, string>>): void {
  const info = VENDORS[config.vendor];
  if (config.base_url === undefined && info.defaultBaseUrl) {
    config.base_url = info.defaultBaseUrl;
    sources.base_url = 'default';
  }
  if (config.base_url !== undefined)
    checkFieldValue('base_url', config.base_url, sources.base_url ?? 'default');
  if (config.vendor === 'azure' && config.api_version === undefined) {
    config.api_version = AZURE_DEFAULT_API_VERSION;
    sources.api_version = 'default';
  }
  if (config.vendor === 'langchain' && (config.module === undefined) !== (config.class === undefined)) {
    const missing = config.module === undefined ? 'module' : 'class';
    throw new ProviderError(
      'config-invalid',
      `${missing} is required with ${missing === 'module' ? 'class' : 'module'}: "module" names the package, "class" the chat model class it exports`,
      { vendor: config.vendor, field: missing },
    );
  }
  if (config.model === '' && config.vendor === 'langchain' && config.class !== undefined) {
    config.model = config.class;
    sources.model = 'default';
  }
  if (config.model === '') {
    if (config.vendor === 'langchain') {
      throw new ProviderError(
        'config-invalid',
        'model is required for langchain: "provider:model" (e.g. "groq:llama-3.3-70b"), or "module" and "class"',
        { field: 'model', vendor: config.vendor },
      );
    }
    if (info.defaultModel === null) {
      throw new ProviderError(
        'config-invalid',
        `model is required for ${config.vendor} (the deployment name); set LLM_MODEL or "model" in the config`,
        { field: 'model', vendor: config.vendor },
      );
    }
    config.model = info.defaultModel;
    sources.model = 'default';
  }
  sources.timeout ??= 'default';
  sources.max_retries ??= 'default';
}

function checkVendorRequirements(
  config: ProviderConfig,
  sources: Partial<Record<ConfigField, string>>,
  ignored: IgnoredValue[],
  env: Record<string, string | undefined>,
): void {
  const { vendor } = config;
  const info = VENDORS[vendor];
  // OpenAI-compatible local servers (llama.cpp, vLLM, LM Studio) usually need no key.
  const keyOptional = vendor === 'openai' && config.base_url !== info.defaultBaseUrl;
  if (info.apiKeyEnv.length > 0 && config.api_key === undefined && !keyOptional) {
    const names = info.apiKeyEnv.join(' or ');
    throw new ProviderError(
      'missing-api-key',
      `No API key for ${vendor}: set ${names} (or "api_key" in the config file)${keyHint(vendor, sources, ignored, env)}`,
      { vendor, envVar: info.apiKeyEnv[0], field: 'api_key' },
    );
  }
  if (vendor === 'azure' && config.base_url === undefined) {
    throw new ProviderError(
      'config-invalid',
      'base_url is required for azure (https://<resource>.openai.azure.com); set AZURE_OPENAI_ENDPOINT or "base_url"',
      { vendor, field: 'base_url', envVar: 'AZURE_OPENAI_ENDPOINT' },
    );
  }
  if (vendor === 'scripted' && config.script === undefined) {
    throw new ProviderError(
      'config-invalid',
      'script is required for the scripted vendor (path of a JSON script); set LLM_SCRIPT or "script"',
      { vendor, field: 'script', envVar: 'LLM_SCRIPT' },
    );
  }
  if (vendor !== 'scripted' && config.script !== undefined) {
    throw new ProviderError(
      'config-invalid',
      `script is only used by the scripted vendor, not ${vendor} (from ${sources.script})`,
      { vendor, field: 'script' },
    );
  }
  for (const [owner, fields] of [
    ['acp', ['command', 'args', 'env']],
    ['langchain', ['module', 'class', 'options']],
  ] as const) {
    if (vendor === owner) continue;
    const field = fields.find((name) => config[name] !== undefined);
    if (field)
      throw new ProviderError(
        'config-invalid',
        `${field} is only used by the ${owner} vendor, not ${vendor} (from ${sources[field]})`,
        { vendor, field },
      );
  }
  // Each integration names its address differently (configuration.baseURL, anthropicApiUrl, baseUrl): a base_url
  // birdie cannot pass on would be silently ignored, and the calls would go to the vendor's own servers.
  if (vendor === 'langchain' && config.base_url !== undefined) {
    throw new ProviderError(
      'config-invalid',
      `base_url is not used by the langchain vendor (from ${sources.base_url}): give the integration its address in "options" under its own name, e.g. {"options":{"configuration":{"baseURL":"${config.base_url}"}}} for openai, {"options":{"baseUrl":"${config.base_url}"}} for ollama`,
      { vendor, field: 'base_url' },
    );
  }
  if (vendor === 'acp' && config.command === undefined) {
    throw new ProviderError(
      'config-invalid',
      'command is required for the acp vendor: the agent program to start, e.g. {"vendor":"acp","command":"npx","args":["@zed-industries/claude-code-acp"]}',
      { vendor, field: 'command' },
    );
  }
}

/** `./agent`, `../bin/x.mjs`: a path, not a bare command or package name (which may contain `/`: `@scope/pkg`). */
function isRelativePath(value: string): boolean {
  return !isAbsolute(value) && (value.startsWith('./') || value.startsWith('../'));
}

/** Why a key the user may think is set is not used: it belongs to another vendor. */
function keyHint(
  vendor: Vendor,
  sources: Partial<Record<ConfigField, string>>,
  ignored: IgnoredValue[],
  env: Record<string, string | undefined>,
): string {
  const key = ignored.find((value) => value.field === 'api_key');
  if (key) return `. The api_key in ${key.source} is for ${key.vendor} and is never sent to ${vendor}`;
  if (sources.vendor !== 'default') return '';
  const others = otherVendorKeys(env, vendor);
  if (others.length === 0) return '';
  const listed = others.map((other) => `${other.name} is set: LLM_VENDOR=${other.vendor} uses it`).join('; ');
  return `. ${listed}`;
}

async function asConfigFile(file: string | ConfigFile, cwd: string): Promise<ConfigFile> {
  return typeof file === 'string' ? readConfigFile(resolve(cwd, file)) : file;
}

function fileLayer(file: ConfigFile): Layer {
  const { vendor, models: _tiers, ...values } = file.provider;
  return {
    ...(vendor === undefined ? {} : { vendor }),
    values,
    source: () => `file ${file.path}`,
    baseDir: dirname(file.path),
  };
}

/** A tier's fields as the highest layer; its sources say which tier they came from. */
function tierLayer(tier: TierLayer, name: ModelTier, source: string, baseDir: string): Layer {
  const { vendor, ...values } = tier;
  return {
    ...(vendor === undefined ? {} : { vendor }),
    values,
    source: () => `${source} (models.${name})`,
    baseDir,
  };
}

/** `vendor:model` named for one use: the two fields above every other layer. */
function namedLayer(named: { vendor: string; model: string }, baseDir: string): Layer {
  const label = `named ${named.vendor}:${named.model}`;
  return { vendor: named.vendor, values: { model: named.model }, source: () => label, baseDir };
}

function inlineLayer(
  text: string,
  where: string,
  cwd: string,
): { layer: Layer; models: ConfigLayer['models'] } {
  const parsed = parseJson(text);
  if (!parsed.ok) {
    throw new ProviderError(
      'config-invalid-json',
      `Invalid JSON in ${where} at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`,
      { line: parsed.line, column: parsed.column },
    );
  }
  const { vendor, models, ...values } = checkProviderObject(parsed.value, { where });
  return {
    layer: {
      ...(vendor === undefined ? {} : { vendor }),
      values,
      source: () => 'inline LLM_PROVIDER_CONFIG',
      baseDir: cwd,
    },
    models,
  };
}
