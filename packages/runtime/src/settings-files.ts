import { existsSync } from 'node:fs';
import type { ConfigFile } from '@birdie/providers';
import type { RuntimeIo } from './io.js';
import { configFile } from './paths.js';
import type { Settings } from './settings.js';

/**
 * The config files, highest first: `explicit` (`--config FILE`), then `~/.birdie/config.json` when it exists (read
 * once when `explicit` names it too, at the higher rank).
 */
export async function readConfigFiles(
  io: RuntimeIo,
  explicit: string | undefined,
): Promise<{ file?: ConfigFile; saved?: ConfigFile; files: ConfigFile[] }> {
  const { readConfigFile } = await import('@birdie/providers');
  const savedPath = configFile(io.env);
  const file = explicit ? await readConfigFile(explicit) : undefined;
  const saved = explicit !== savedPath && existsSync(savedPath) ? await readConfigFile(savedPath) : undefined;
  return {
    ...(file ? { file } : {}),
    ...(saved ? { saved } : {}),
    files: [file, saved].filter((f): f is ConfigFile => f !== undefined),
  };
}

/**
 * The settings alone, for commands that load the skills without a provider (`skills list`, `trust`): a problem in
 * the files leaves the defaults (the command that needs the provider reports it).
 */
export async function readSettings(io: RuntimeIo, explicit: string | undefined): Promise<Settings> {
  const { mergeSettings } = await import('./settings-schema.js');
  try {
    return mergeSettings((await readConfigFiles(io, explicit)).files).settings;
  } catch {
    const { defaultSettings } = await import('./settings.js');
    return defaultSettings();
  }
}
