import type { ConfigFile } from '@birdie/providers';
import { brokenLinkWhy } from './broken-link.js';
import { configFileThere } from './config-file-there.js';
import type { RuntimeIo } from './io.js';
import { configFile } from './paths.js';
import type { Settings } from './settings.js';

/**
 * The config files, highest first: `explicit` (`--config FILE`), then `~/.birdie/config.json` when it exists (read
 * once when `explicit` names it too, at the higher rank). A `config.json` that is a symbolic link to nothing (or sits
 * in a linked folder that is gone) is not a missing one: it held the user's settings, deny rules among them, and is
 * refused as an unreadable file is.
 */
export async function readConfigFiles(
  io: RuntimeIo,
  explicit: string | undefined,
): Promise<{ file?: ConfigFile; saved?: ConfigFile; files: ConfigFile[] }> {
  const { readConfigFile, ProviderError } = await import('@birdie/providers');
  const savedPath = configFile(io.env);
  const file = explicit ? await readConfigFile(explicit) : undefined;
  let saved: ConfigFile | undefined;
  if (explicit !== savedPath) {
    // Whatever is there is read: `readConfigFile` says what is wrong with a folder, a pipe or a link to nothing.
    if (configFileThere(savedPath)) saved = await readConfigFile(savedPath);
    else {
      // Nothing there, unless a linked folder on the way (`~/.birdie` itself) is gone.
      const broken = await brokenLinkWhy(savedPath);
      if (broken !== undefined)
        throw new ProviderError(
          'config-file-unreadable',
          `Cannot read config file ${savedPath} (${broken})`,
          {
            file: savedPath,
          },
        );
    }
  }
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
  return (await readSettingsOrProblem(io, explicit)).settings;
}

/**
 * The settings, or the defaults and why the files could not be used (`problem`, the error's message: a file that is
 * not JSON or not readable, a value no setting takes), for a command that shows what the settings decide and must say
 * when it could not read them.
 */
export async function readSettingsOrProblem(
  io: RuntimeIo,
  explicit: string | undefined,
): Promise<{ settings: Settings; problem?: string }> {
  const { mergeSettings } = await import('./settings-schema.js');
  try {
    return { settings: mergeSettings((await readConfigFiles(io, explicit)).files).settings };
  } catch (error) {
    const { defaultSettings } = await import('./settings.js');
    return { settings: defaultSettings(), problem: (error as Error).message };
  }
}
