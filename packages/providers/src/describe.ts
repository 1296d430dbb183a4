import type { ProviderConfig } from './config-schema.js';
import { VENDORS } from './vendors.js';

/** The config's own fields as they are, plus what is safe to show in place of the key and the URL. */
export interface ProviderDescription
  extends Pick<
    ProviderConfig,
    | 'vendor'
    | 'model'
    | 'temperature'
    | 'max_tokens'
    | 'api_version'
    | 'timeout'
    | 'max_retries'
    | 'script'
    | 'command'
    | 'args'
    | 'module'
    | 'class'
  > {
  /** Names of the variables given to an acp agent; their values may be secrets and are never shown. */
  env?: string[];
  /** Names of the langchain vendor's constructor options; their values may hold keys and are never shown. */
  options?: string[];
  /** `vendor/model`, for a status bar. */
  label: string;
  /** Package providing the model (`null`: built in). */
  package: string | null;
  /** Base URL without credentials, query or fragment. */
  base_url?: string;
  /** Whether a key is configured; the key itself is never part of the description. */
  api_key: 'set' | 'not set' | 'not needed';
}

/** A summary that is safe to print (`/info`, status bar): no key, no credentials in URLs. */
export function describeProvider(config: ProviderConfig): ProviderDescription {
  const info = VENDORS[config.vendor];
  const description: ProviderDescription = {
    vendor: config.vendor,
    model: config.model,
    label: `${config.vendor}/${config.model}`,
    package: info.package,
    api_key: info.apiKeyEnv.length === 0 ? 'not needed' : config.api_key ? 'set' : 'not set',
    timeout: config.timeout,
    max_retries: config.max_retries,
  };
  if (config.base_url !== undefined) description.base_url = safeUrl(config.base_url);
  if (config.temperature !== undefined) description.temperature = config.temperature;
  if (config.max_tokens !== undefined) description.max_tokens = config.max_tokens;
  if (config.api_version !== undefined) description.api_version = config.api_version;
  if (config.script !== undefined) description.script = config.script;
  if (config.command !== undefined) description.command = config.command;
  if (config.args !== undefined) description.args = [...config.args];
  if (config.env !== undefined) description.env = Object.keys(config.env);
  if (config.module !== undefined) description.module = config.module;
  if (config.class !== undefined) description.class = config.class;
  if (config.options !== undefined) description.options = Object.keys(config.options);
  return description;
}

function safeUrl(value: string): string {
  try {
    const url = new URL(value);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}
