import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CONFIG_FIELDS, type ConfigLayer } from './config-schema.js';
import { ProviderError } from './errors.js';
import { type JsonPath, type JsonPlace, jsonPlaces } from './json-paths.js';
import { parseJson } from './json-position.js';
import { checkProviderObject, invalidConfig, type LayerOrigin } from './provider-layer.js';

/** The top-level keys of a sectioned config file. */
export const CONFIG_SECTIONS = ['provider', 'settings'] as const;
export type ConfigSection = (typeof CONFIG_SECTIONS)[number];

/** A config file, read and checked: its provider section validated, its settings section left to the application. */
export interface ConfigFile {
  /** Absolute path. */
  path: string;
  /**
   * `sections`: `{ "provider": {…}, "settings": {…} }`. `flat`: provider fields at the top level, the shape of
   * the first release, read as the provider section.
   */
  shape: 'sections' | 'flat';
  /** The provider section's fields as written (every field optional), checked against the provider schema. */
  provider: ConfigLayer;
  /** The settings section as written (a JSON object), or undefined; the application owns its schema. */
  settings: Record<string, unknown> | undefined;
  /** Line and column (1-based) of a key in the file, e.g. `['settings', 'approval']`, for positioned messages. */
  placeOf(path: JsonPath): JsonPlace;
}

/** Reads and checks a config file; every problem is a `ProviderError` naming the file, line and column. */
export async function readConfigFile(path: string): Promise<ConfigFile> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const why = (cause as NodeJS.ErrnoException).code ?? 'read error';
    throw new ProviderError('config-file-unreadable', `Cannot read config file ${file} (${why})`, {
      cause,
      file,
    });
  }
  return parseConfigFile(text, file);
}

/**
 * Checks a config file's text. A file whose top level has a `provider` or `settings` key is sectioned, and only
 * those two keys are allowed there; any other file is the flat shape (provider fields only). Unknown keys, in
 * either shape, are errors with their line and column: a typo never passes silently.
 */
export function parseConfigFile(text: string, path: string): ConfigFile {
  const where = `file ${path}`;
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const parsed = parseJson(body);
  if (!parsed.ok) {
    throw new ProviderError(
      'config-invalid-json',
      `Invalid JSON in ${where} at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}`,
      { file: path, line: parsed.line, column: parsed.column },
    );
  }
  const placeOf = jsonPlaces(body);
  const origin: LayerOrigin = { where, file: path, placeOf };
  const value = parsed.value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidConfig(origin, [], 'must be a JSON object');
  }
  const top = value as Record<string, unknown>;
  const sectioned = CONFIG_SECTIONS.some((section) => Object.hasOwn(top, section));
  if (!sectioned) {
    return { path, shape: 'flat', provider: checkProviderObject(top, origin), settings: undefined, placeOf };
  }
  for (const key of Object.keys(top)) {
    if ((CONFIG_SECTIONS as readonly string[]).includes(key)) continue;
    const hint = (CONFIG_FIELDS as readonly string[]).includes(key)
      ? `; provider fields go inside "provider"`
      : '';
    throw invalidConfig(
      origin,
      [key],
      `unknown section ${JSON.stringify(key)} (allowed: ${CONFIG_SECTIONS.join(', ')})${hint}`,
      key,
    );
  }
  const provider =
    top.provider === undefined ? {} : checkProviderObject(top.provider, { ...origin, prefix: ['provider'] });
  const settings = top.settings;
  if (
    settings !== undefined &&
    (settings === null || typeof settings !== 'object' || Array.isArray(settings))
  ) {
    throw invalidConfig(origin, ['settings'], '"settings" must be a JSON object', 'settings');
  }
  return {
    path,
    shape: 'sections',
    provider,
    settings: settings as Record<string, unknown> | undefined,
    placeOf,
  };
}
