import { z } from 'zod';
import type { Vendor } from './vendors.js';

/** A resolved provider config: what `createChatModel` needs. Field names match the JSON config file. */
export interface ProviderConfig {
  vendor: Vendor;
  model: string;
  /** Never printed: `describeProvider` and `sources` only say whether and where it is set. */
  api_key?: string;
  base_url?: string;
  /** 0–2. */
  temperature?: number;
  max_tokens?: number;
  /** Azure (e.g. `2024-10-21`) and Gemini (`v1`, `v1beta`). */
  api_version?: string;
  /** Per-request timeout in milliseconds. */
  timeout: number;
  /** Retries after a 429/5xx/529 before a typed error (0–10). */
  max_retries: number;
  /** Scripted vendor: absolute path of the JSON script. */
  script?: string;
  /** acp vendor: the agent program to start (stdio); `node` means the Node.js running birdie. */
  command?: string;
  /** acp vendor: its arguments. */
  args?: string[];
  /** acp vendor: variables the agent is given on top of the environment allowlist (PATH, HOME, locale, …). */
  env?: Record<string, string>;
  /** langchain vendor: the package to import a chat model class from (`@langchain/groq`). */
  module?: string;
  /** langchain vendor: the class `module` exports (`ChatGroq`). */
  class?: string;
  /** langchain vendor: the class's (or initChatModel's) constructor fields, as written. */
  options?: Record<string, unknown>;
}

export const CONFIG_FIELDS = [
  'vendor',
  'model',
  'api_key',
  'base_url',
  'temperature',
  'max_tokens',
  'api_version',
  'timeout',
  'max_retries',
  'script',
  'command',
  'args',
  'env',
  'module',
  'class',
  'options',
] as const;
export type ConfigField = (typeof CONFIG_FIELDS)[number];

/**
 * Fields that make a config run code: a program to start (`command`, `args`, `env`) or a module to import (`module`,
 * `class`, `options`). Only the user's own config may set them (`--config`, `LLM_PROVIDER_CONFIG`,
 * `~/.birdie/config.json`) — never an agent file, a skill or anything from a project folder. A caller that builds a
 * provider config from less trusted text must refuse these.
 */
export const PROGRAM_FIELDS = ['command', 'args', 'env', 'module', 'class', 'options'] as const;
export type ProgramField = (typeof PROGRAM_FIELDS)[number];

export const NUMERIC_FIELDS: readonly ConfigField[] = ['temperature', 'max_tokens', 'timeout', 'max_retries'];

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const number = (allowed: string) => z.number({ error: `must be a number (${allowed})` });
const int = (min: number, max: number, unit = '') =>
  number(`an integer from ${min} to ${max}${unit}`)
    .int({ error: `must be an integer from ${min} to ${max}${unit}` })
    .min(min, { error: `must be an integer from ${min} to ${max}${unit}` })
    .max(max, { error: `must be an integer from ${min} to ${max}${unit}` });
const text = z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' });
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const jsonObject = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' });

/** The fields of one provider config, as the JSON file writes them. */
const providerFields = {
  vendor: z.string({ error: 'must be a string' }),
  model: text,
  api_key: text,
  base_url: z
    .string({ error: 'must be a string' })
    .refine(isHttpUrl, { error: 'must be an http:// or https:// URL' }),
  temperature: number('0 to 2')
    .min(0, { error: 'must be between 0 and 2' })
    .max(2, { error: 'must be between 0 and 2' }),
  max_tokens: int(1, 1_000_000),
  api_version: text,
  timeout: int(1, 3_600_000, ' (milliseconds)'),
  max_retries: int(0, 10),
  script: text,
  command: text.refine((value) => !value.includes('\0'), { error: 'must not contain NUL' }),
  args: z.array(
    z.string({ error: 'must be a string' }).refine((value) => !value.includes('\0'), {
      error: 'must not contain NUL',
    }),
    { error: 'must be an array of strings' },
  ),
  env: z.record(
    z.string().regex(ENV_NAME, { error: 'names must be variable names (letters, digits, _)' }),
    z.string({ error: 'values must be strings' }),
    { error: 'must be a JSON object of strings' },
  ),
  module: text,
  class: text.regex(/^[A-Za-z_$][\w$]*$/, { error: 'must be an exported class name' }),
  options: jsonObject,
};

const objectError = {
  error: (issue: { code: string }) => (issue.code === 'invalid_type' ? 'must be a JSON object' : undefined),
};

/**
 * The model tiers a provider section may name under `models`: each is a provider config of its own, merged over the
 * layers below it like any other (a tier without `vendor` keeps the section's vendor and key).
 */
export const MODEL_TIERS = ['fast', 'default', 'strong'] as const;
export type ModelTier = (typeof MODEL_TIERS)[number];

export function isModelTier(value: unknown): value is ModelTier {
  return typeof value === 'string' && (MODEL_TIERS as readonly string[]).includes(value);
}

/** One tier: the provider fields, every one optional, unknown fields refused. */
export const tierLayerSchema = z.strictObject(providerFields, objectError).partial();

/** One layer of config (file, inline JSON or environment), every field optional, unknown fields refused. */
export const configLayerSchema = z
  .strictObject(
    {
      ...providerFields,
      models: z
        .strictObject(
          { fast: tierLayerSchema, default: tierLayerSchema, strong: tierLayerSchema },
          objectError,
        )
        .partial(),
    },
    objectError,
  )
  .partial();

export type TierLayer = z.infer<typeof tierLayerSchema>;
export type ConfigLayer = z.infer<typeof configLayerSchema>;
