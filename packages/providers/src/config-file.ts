import { constants } from 'node:fs';
import { lstat, open, readlink, stat } from 'node:fs/promises';
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

export interface ConfigFileOptions {
  /**
   * Called with each problem of the file's sections (a wrong provider section or field, an unknown section, a
   * `settings` that is no object) instead of throwing it: the section is then read as empty, the rest of the file
   * as usual. For commands that work on the settings alone (`birdie config`), which still show and repair them.
   * A file that cannot be read, or is not a JSON object, still throws.
   */
  sectionProblems?: (problem: ProviderError) => void;
}

/** Reads and checks a config file; every problem is a `ProviderError` naming the file, line and column. */
export async function readConfigFile(path: string, options: ConfigFileOptions = {}): Promise<ConfigFile> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readRegularFile(file);
  } catch (cause) {
    const why = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message ?? 'read error';
    throw new ProviderError('config-file-unreadable', `Cannot read config file ${file} (${why})`, {
      cause,
      file,
    });
  }
  return parseConfigFile(text, file, options);
}

const NOT_REGULAR = 'it is not a regular file (a pipe, a socket or a device)';

/**
 * A regular file's text. Opened without blocking and checked on the open file: a named pipe (or a device) in its
 * place is refused at once, where a plain read would wait for a writer for ever and every command with it.
 */
async function readRegularFile(file: string): Promise<string> {
  // Looked at before it is opened: opening a pipe, even without blocking, would wake a writer waiting on it.
  const before = await stat(file).catch(async (error: NodeJS.ErrnoException) => {
    // A symbolic link to nothing is not a missing file: someone put it there.
    const link = error.code === 'ENOENT' ? await lstat(file).catch(() => undefined) : undefined;
    if (link?.isSymbolicLink()) {
      const target = await readlink(file).catch(() => '?');
      throw new Error(`it is a symbolic link to ${target}, which does not exist`);
    }
    throw error;
  });
  if (!before.isFile() && !before.isDirectory()) throw new Error(NOT_REGULAR);
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw Object.assign(new Error('it is a folder, not a file'), { code: 'EISDIR' });
    if (!info.isFile()) throw new Error(NOT_REGULAR);
    return await handle.readFile('utf8');
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * Checks a config file's text. A file whose top level has a `provider` or `settings` key is sectioned, and only
 * those two keys are allowed there; any other file is the flat shape (provider fields only). Unknown keys, in
 * either shape, are errors with their line and column: a typo never passes silently.
 */
export function parseConfigFile(text: string, path: string, options: ConfigFileOptions = {}): ConfigFile {
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
  const collect = options.sectionProblems;
  /** A section's problem: thrown, or (collecting) reported, and the section read as `fallback`. */
  const checked = <T>(read: () => T, fallback: T): T => {
    if (!collect) return read();
    try {
      return read();
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      collect(error);
      return fallback;
    }
  };
  const sectioned = CONFIG_SECTIONS.some((section) => Object.hasOwn(top, section));
  if (!sectioned) {
    const provider = checked(() => checkProviderObject(top, origin), {});
    return { path, shape: 'flat', provider, settings: undefined, placeOf };
  }
  for (const key of Object.keys(top)) {
    if ((CONFIG_SECTIONS as readonly string[]).includes(key)) continue;
    const hint = (CONFIG_FIELDS as readonly string[]).includes(key)
      ? `; provider fields go inside "provider"`
      : '';
    const problem = invalidConfig(
      origin,
      [key],
      `unknown section ${JSON.stringify(key)} (allowed: ${CONFIG_SECTIONS.join(', ')})${hint}`,
      key,
    );
    if (!collect) throw problem;
    collect(problem);
  }
  const provider =
    top.provider === undefined
      ? {}
      : checked(() => checkProviderObject(top.provider, { ...origin, prefix: ['provider'] }), {});
  const settings = checked(() => {
    const section = top.settings;
    if (section !== undefined && (section === null || typeof section !== 'object' || Array.isArray(section)))
      throw invalidConfig(origin, ['settings'], '"settings" must be a JSON object', 'settings');
    return section as Record<string, unknown> | undefined;
  }, undefined);
  return {
    path,
    shape: 'sections',
    provider,
    settings,
    placeOf,
  };
}
