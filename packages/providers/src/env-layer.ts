import { type ConfigField, type ConfigLayer, NUMERIC_FIELDS, type ProgramField } from './config-schema.js';
import { ProviderError } from './errors.js';
import { checkFieldValue } from './provider-layer.js';
import { isVendor, VENDOR_NAMES, VENDORS, type Vendor } from './vendors.js';

/**
 * Generic variables, one per field; the vendor's own key and base URL variables are in VENDORS. The program fields
 * (`command`, `module`, …) have none: a config that runs code is written as JSON, in a file or LLM_PROVIDER_CONFIG.
 */
export const ENV_VARS: Readonly<Record<Exclude<ConfigField, 'api_key' | ProgramField>, string>> = {
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

export const AZURE_API_VERSION_ENV = ['AZURE_OPENAI_API_VERSION', 'OPENAI_API_VERSION'] as const;

type Env = Record<string, string | undefined>;

/** One layer of the merge: the fields it sets, the vendor it names (if any) and how to name its sources. */
export interface Layer {
  /** The vendor the layer names; from the environment it is unchecked until it is the one used. */
  vendor?: string;
  values: Omit<ConfigLayer, 'vendor'>;
  source: (field: ConfigField) => string;
  /** Directory relative `script` paths are resolved against. */
  baseDir: string;
  /** Validates a value of this layer once it is picked (environment values only). */
  check?: (field: ConfigField, value: unknown) => void;
}

const set = (env: Env, name: string) => {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
};

/** `LLM_*` variables: the vendor is `LLM_VENDOR`, the rest apply to whatever vendor this layer belongs to. */
export function genericEnvLayer(env: Env, cwd: string): Layer {
  const values: Record<string, unknown> = {};
  const names: Partial<Record<ConfigField, string>> = {};
  let vendor: string | undefined;
  for (const [field, name] of Object.entries(ENV_VARS) as Array<[ConfigField, string]>) {
    const value = set(env, name);
    if (value === undefined) continue;
    names[field] = name;
    if (field === 'vendor') vendor = value;
    else values[field] = NUMERIC_FIELDS.includes(field) ? decimal(value) : value;
  }
  return {
    ...(vendor === undefined ? {} : { vendor }),
    values: values as Layer['values'],
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
      checkFieldValue(field, value, `env ${name}`, env[name]);
    },
  };
}

/**
 * The chosen vendor's own variables (`OPENAI_API_KEY`, `ANTHROPIC_BASE_URL`, Azure's API version): they belong to
 * that vendor only, so they are read for it and for no other, and never choose the vendor themselves.
 */
export function vendorEnvLayer(env: Env, vendor: Vendor, cwd: string): Layer {
  const info = VENDORS[vendor];
  const values: Record<string, unknown> = {};
  const names: Partial<Record<ConfigField, string>> = {};
  const first = (field: ConfigField, candidates: readonly string[]) => {
    const name = candidates.find((candidate) => set(env, candidate) !== undefined);
    if (name === undefined) return;
    values[field] = env[name];
    names[field] = name;
  };
  first('api_key', info.apiKeyEnv);
  first('base_url', info.baseUrlEnv);
  if (vendor === 'azure') first('api_version', AZURE_API_VERSION_ENV);
  return {
    vendor,
    values: values as Layer['values'],
    source: (field) => `env ${names[field]}`,
    baseDir: cwd,
    check: (field, value) => checkFieldValue(field, value, `env ${names[field]}`),
  };
}

/** Key variables of vendors other than `vendor` that are set: a hint when the chosen vendor has no key. */
export function otherVendorKeys(env: Env, vendor: Vendor): Array<{ vendor: Vendor; name: string }> {
  const found: Array<{ vendor: Vendor; name: string }> = [];
  for (const other of VENDOR_NAMES) {
    if (other === vendor) continue;
    const name = VENDORS[other].apiKeyEnv.find((candidate) => set(env, candidate) !== undefined);
    if (name) found.push({ vendor: other, name });
  }
  return found;
}

/** A decimal as a person writes one (`0.7`, `4096`), else NaN (refused by the schema): `Number()` would read `0x10`. */
function decimal(text: string): number {
  const trimmed = text.trim();
  return /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}
