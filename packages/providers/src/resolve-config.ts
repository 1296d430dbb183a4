import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import {
  CONFIG_FIELDS,
  type ConfigField,
  type ConfigLayer,
  configLayerSchema,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  NUMERIC_FIELDS,
  type ProviderConfig,
} from './config-schema.js';
import { ProviderError } from './errors.js';
import { parseJson } from './json-position.js';
import { isVendor, VENDOR_NAMES, VENDORS, type Vendor } from './vendors.js';

export interface ResolveProviderConfigInput {
  /** Usually `process.env`. Supplies LLM_* variables, LLM_PROVIDER_CONFIG and the vendor's key variable. */
  env: Record<string, string | undefined>;
  /** Path of a JSON config file (`--config FILE`). */
  file?: string;
  /** Inline JSON; defaults to `env.LLM_PROVIDER_CONFIG`. */
  inline?: string;
  /** Base for relative `script` paths outside a file (default: process.cwd()). */
  cwd?: string;
}

export interface ResolvedProviderConfig {
  config: ProviderConfig;
  /**
   * Where each set field (a ConfigField) came from: `inline LLM_PROVIDER_CONFIG`, `file /abs/path`, `env LLM_MODEL`,
   * `default`. Fields without a value are absent.
   */
  sources: Record<string, string>;
}

/** Generic variables, one per field; the vendor's own key and base URL variables are in VENDORS. */
export const ENV_VARS: Readonly<Record<Exclude<ConfigField, 'api_key'>, string>> = {
  vendor: 'LLM_VENDOR',
  model: 'LLM_MODEL',
  base_url: 'LLM_BASE_URL',
  temperature: 'LLM_TEMPERATURE',
  max_tokens: 'LLM_MAX_TOKENS',
  api_version: 'LLM_API_VERSION',
  timeout: 'LLM_TIMEOUT',
  max_retries: 'LLM_MAX_RETRIES',
  script: 'LLM_SCRIPT',
};

const AZURE_API_VERSION_ENV = ['AZURE_OPENAI_API_VERSION', 'OPENAI_API_VERSION'];
const AZURE_DEFAULT_API_VERSION = '2024-10-21';

interface Layer {
  values: ConfigLayer;
  /** Field → source label. */
  source: (field: ConfigField) => string;
  /** Directory relative `script` paths are resolved against. */
  baseDir: string;
  /** Validates a value of this layer once it is picked. */
  check?: (field: ConfigField, value: unknown) => void;
}

/** Merges inline JSON > file > environment > defaults, field by field, and validates the result. */
export async function resolveProviderConfig(
  input: ResolveProviderConfigInput,
): Promise<ResolvedProviderConfig> {
  const cwd = input.cwd ?? process.cwd();
  const inlineText = input.inline ?? input.env.LLM_PROVIDER_CONFIG;
  const layers: Layer[] = [];
  if (inlineText !== undefined && inlineText.trim() !== '') {
    const where = input.inline !== undefined ? 'inline config' : 'inline LLM_PROVIDER_CONFIG';
    const label = 'inline LLM_PROVIDER_CONFIG';
    layers.push({ values: parseLayer(inlineText, where, undefined), source: () => label, baseDir: cwd });
  }
  if (input.file !== undefined) {
    const path = resolve(cwd, input.file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (cause) {
      const why = (cause as NodeJS.ErrnoException).code ?? 'read error';
      throw new ProviderError('config-file-unreadable', `Cannot read config file ${path} (${why})`, {
        cause,
        file: path,
      });
    }
    layers.push({
      values: parseLayer(text, `file ${path}`, path),
      source: () => `file ${path}`,
      baseDir: dirname(path),
    });
  }
  layers.push(envLayer(input.env, cwd));

  const pick = <F extends ConfigField>(field: F): { value: ConfigLayer[F]; layer: Layer } | undefined => {
    for (const layer of layers) {
      const value = layer.values[field];
      if (value === undefined) continue;
      layer.check?.(field, value);
      return { value, layer };
    }
    return undefined;
  };

  const sources: Partial<Record<ConfigField, string>> = {};
  const vendorPick = pick('vendor');
  const vendorName = vendorPick?.value ?? 'openai';
  if (!isVendor(vendorName)) {
    const where = vendorPick ? ` (from ${vendorPick.layer.source('vendor')})` : '';
    throw new ProviderError(
      'unknown-vendor',
      `Unknown vendor ${JSON.stringify(vendorName)}${where}; use one of: ${VENDOR_NAMES.join(', ')}`,
      { field: 'vendor' },
    );
  }
  const vendor: Vendor = vendorName;
  sources.vendor = vendorPick ? vendorPick.layer.source('vendor') : 'default';
  const info = VENDORS[vendor];
  const config: ProviderConfig = {
    vendor,
    model: '',
    timeout: DEFAULT_TIMEOUT_MS,
    max_retries: DEFAULT_MAX_RETRIES,
  };

  for (const field of CONFIG_FIELDS) {
    if (field === 'vendor') continue;
    const picked = pick(field);
    if (!picked) continue;
    let value: unknown = picked.value;
    if (field === 'script' && typeof value === 'string' && !isAbsolute(value)) {
      value = resolve(picked.layer.baseDir, value);
    }
    (config as unknown as Record<string, unknown>)[field] = value;
    sources[field] = picked.layer.source(field);
  }

  const fromEnv = (field: ConfigField, names: readonly string[]) => {
    for (const name of names) {
      const value = input.env[name];
      if (value !== undefined && value !== '') {
        (config as unknown as Record<string, unknown>)[field] = value;
        sources[field] = `env ${name}`;
        return true;
      }
    }
    return false;
  };
  if (config.api_key === undefined) fromEnv('api_key', info.apiKeyEnv);
  if (config.base_url === undefined && !fromEnv('base_url', info.baseUrlEnv) && info.defaultBaseUrl) {
    config.base_url = info.defaultBaseUrl;
    sources.base_url = 'default';
  }
  if (config.base_url !== undefined)
    validateEnvValue('base_url', config.base_url, sources.base_url ?? 'default');
  if (
    vendor === 'azure' &&
    config.api_version === undefined &&
    !fromEnv('api_version', AZURE_API_VERSION_ENV)
  ) {
    config.api_version = AZURE_DEFAULT_API_VERSION;
    sources.api_version = 'default';
  }
  if (config.model === '') {
    if (info.defaultModel === null) {
      throw new ProviderError(
        'config-invalid',
        `model is required for ${vendor} (the deployment name); set LLM_MODEL or "model" in the config`,
        { field: 'model', vendor },
      );
    }
    config.model = info.defaultModel;
    sources.model = 'default';
  }
  sources.timeout ??= 'default';
  sources.max_retries ??= 'default';

  checkVendorRequirements(config, sources);
  return { config, sources: sources as Record<string, string> };
}

function checkVendorRequirements(
  config: ProviderConfig,
  sources: Partial<Record<ConfigField, string>>,
): void {
  const { vendor } = config;
  const info = VENDORS[vendor];
  // OpenAI-compatible local servers (llama.cpp, vLLM, LM Studio) usually need no key.
  const keyOptional = vendor === 'openai' && config.base_url !== info.defaultBaseUrl;
  if (info.apiKeyEnv.length > 0 && config.api_key === undefined && !keyOptional) {
    const names = info.apiKeyEnv.join(' or ');
    throw new ProviderError(
      'missing-api-key',
      `No API key for ${vendor}: set ${names} (or "api_key" in the config file)`,
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
}

function parseLayer(text: string, where: string, file: string | undefined): ConfigLayer {
  const parsed = parseJson(text);
  if (!parsed.ok) {
    throw new ProviderError(
      'config-invalid-json',
      `Invalid JSON in ${where} at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`,
      { file, line: parsed.line, column: parsed.column },
    );
  }
  if (parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
    throw new ProviderError('config-invalid', `Invalid config in ${where}: must be a JSON object`, { file });
  }
  const raw = parsed.value as Record<string, unknown>;
  if (typeof raw.vendor === 'string' && !isVendor(raw.vendor)) {
    throw new ProviderError(
      'unknown-vendor',
      `Unknown vendor ${JSON.stringify(raw.vendor)} in ${where}; use one of: ${VENDOR_NAMES.join(', ')}`,
      { file, field: 'vendor' },
    );
  }
  return validateLayer(raw, where, file);
}

function validateLayer(raw: Record<string, unknown>, where: string, file?: string): ConfigLayer {
  const result = configLayerSchema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    throw new ProviderError(
      'config-invalid',
      `Invalid config in ${where}: unknown field ${JSON.stringify(key)} (allowed: ${CONFIG_FIELDS.join(', ')})`,
      { file, field: key },
    );
  }
  const field = issue.path.map(String).join('.');
  const got = field === 'api_key' ? '' : ` (got ${JSON.stringify(raw[field])})`;
  throw new ProviderError('config-invalid', `Invalid config in ${where}: ${field} ${issue.message}${got}`, {
    file,
    field,
  });
}

function envLayer(env: Record<string, string | undefined>, cwd: string): Layer {
  const values: Record<string, unknown> = {};
  const names: Partial<Record<ConfigField, string>> = {};
  for (const [field, name] of Object.entries(ENV_VARS) as Array<[ConfigField, string]>) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    names[field] = name;
    values[field] = NUMERIC_FIELDS.includes(field)
      ? value.trim() === ''
        ? Number.NaN
        : Number(value)
      : value;
  }
  return {
    values: values as ConfigLayer,
    source: (field) => `env ${names[field]}`,
    baseDir: cwd,
    // Variables are checked only when they are the value used: an overridden one cannot break a config.
    check: (field, value) => {
      const name = names[field]!;
      if (field === 'vendor' && !isVendor(value)) {
        throw new ProviderError(
          'unknown-vendor',
          `Unknown vendor ${JSON.stringify(value)} in env ${name}; use one of: ${VENDOR_NAMES.join(', ')}`,
          { field: 'vendor', envVar: name },
        );
      }
      validateEnvValue(field, value, `env ${name}`, env[name]);
    },
  };
}

function validateEnvValue(field: ConfigField, value: unknown, where: string, raw: unknown = value): void {
  const result = configLayerSchema.safeParse({ [field]: value });
  if (result.success) return;
  const issue = result.error.issues[0]!;
  const shown = JSON.stringify(raw);
  throw new ProviderError(
    'config-invalid',
    `Invalid config in ${where}: ${field} ${issue.message} (got ${shown})`,
    {
      field,
      envVar: where.startsWith('env ') ? where.slice(4) : undefined,
    },
  );
}
