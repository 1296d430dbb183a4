import type { Vendor, VendorInfo } from '@birdie/providers';

// What a setup asks of the user to choose a model provider, and what it accepts: the terminal's wizard (`birdie
// setup`) asks it with prompts; another front end (a web page) can ask the same questions with the same checks.

/** The base URL question of `birdie setup`, for a vendor that accepts one. */
export interface BaseUrlQuestion {
  message: string;
  placeholder: string;
  defaultValue: string;
}

/**
 * What setup asks for the base URL, or undefined for a vendor that takes none: Azure its endpoint, Ollama its server
 * (its default local one offered), every other vendor with a base URL an optional one (empty: the vendor's own), which
 * for `openai` is how a local OpenAI-compatible server (llama.cpp, vLLM, LM Studio) is reached.
 */
export function baseUrlQuestion(vendor: Vendor, info: VendorInfo): BaseUrlQuestion | undefined {
  if (info.baseUrlEnv.length === 0) return undefined;
  if (vendor === 'azure')
    return { message: 'Endpoint (https://<resource>.openai.azure.com)', placeholder: '', defaultValue: '' };
  if (vendor === 'ollama')
    return {
      message: 'Server URL',
      placeholder: info.defaultBaseUrl ?? '',
      defaultValue: info.defaultBaseUrl ?? '',
    };
  const own = info.defaultBaseUrl ?? `${vendor}'s own`;
  const local =
    vendor === 'openai' ? '; a local OpenAI-compatible server: e.g. http://127.0.0.1:8080/v1' : '';
  return { message: `Base URL (empty: ${own}${local})`, placeholder: '', defaultValue: '' };
}

/** Why `value` cannot be a base URL (empty is fine: none), or undefined. */
export function baseUrlProblem(value: string | undefined): string | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL (e.g. http://127.0.0.1:8080/v1)';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with http:// or https://';
  if (url.username || url.password) return 'must not hold a user name or password (the key is asked next)';
  return undefined;
}

/** Whether setup may save no key: `openai` at a base URL of its own (a local server that needs none) and keyless vendors. */
export function keyOptional(vendor: Vendor, info: VendorInfo, baseUrl: string | undefined): boolean {
  if (info.apiKeyEnv.length === 0) return true;
  return vendor === 'openai' && baseUrl !== undefined && baseUrl !== info.defaultBaseUrl;
}

/** The API key question of `birdie setup`: its wording, the variable that already holds a key, and its check. */
export interface KeyQuestion {
  message: string;
  /** The first of the vendor's key variables set in the environment: an empty answer uses it. */
  fromEnv: string | undefined;
  /** Why an answer cannot be saved (empty when a key is needed), or undefined. */
  validate(value: string | undefined): string | undefined;
}

/** What setup asks for the key of `vendor` at the base URL the user gave (if any), with `env` as the environment. */
export function keyQuestion(
  vendor: Vendor,
  info: VendorInfo,
  env: NodeJS.ProcessEnv,
  baseUrl: string | undefined,
): KeyQuestion {
  const optional = keyOptional(vendor, info, baseUrl);
  const fromEnv = info.apiKeyEnv.find((name) => env[name]);
  return {
    message: fromEnv
      ? `API key (leave empty to use ${fromEnv} from the environment)`
      : optional
        ? 'API key (leave empty for a server that needs none)'
        : `API key (${info.apiKeyEnv.join(' or ')} is not set, so one is needed)`,
    fromEnv,
    validate: (value) =>
      !value && !fromEnv && !optional
        ? `a key is required: ${info.apiKeyEnv.join(' and ')} ${info.apiKeyEnv.length > 1 ? 'are' : 'is'} not set`
        : undefined,
  };
}
