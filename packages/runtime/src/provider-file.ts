import { readFile } from 'node:fs/promises';
import { UsageError } from './errors.js';
import { writePrivateFile } from './folders.js';
import { configFile } from './paths.js';

/** Saves a chosen model provider into the user's config file (`~/.birdie/config.json`), as the setup wizard does. */
export interface ProviderFileWriter {
  file: string;
  /**
   * Replaces the file's `provider` section, keeping its `settings` section as it was when the writer was made. The
   * file is written with mode 0600 in a 0700 folder (it may hold a key) and replaced, never written through.
   */
  save(provider: Record<string, string>): Promise<void>;
}

/**
 * Reads the settings section to keep first, so that a file that cannot be kept (unreadable, not JSON) fails before
 * any question is asked, with a usage error saying nothing was written.
 */
export async function providerFileWriter(env: NodeJS.ProcessEnv): Promise<ProviderFileWriter> {
  const file = configFile(env);
  const settings = await settingsToKeep(file);
  return {
    file,
    save: (provider) => writePrivateFile(file, configText(provider, settings), { ownFolder: true }),
  };
}

/**
 * The settings section of the file setup replaces, read without checking its provider section: that section is being
 * replaced, and may be why setup runs (an empty key older versions saved). A file that is not JSON is not replaced.
 */
async function settingsToKeep(file: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read ${file} (${code ?? 'read error'}); nothing was written`, {
      cause: error,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\ufeff/, ''));
  } catch (error) {
    throw new UsageError(
      `${file} is not valid JSON (${(error as Error).message}): fix it or move it away, then run \`birdie setup\` again; nothing was written`,
      { cause: error },
    );
  }
  const settings =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>).settings
      : undefined;
  return settings !== null && typeof settings === 'object' && !Array.isArray(settings)
    ? (settings as Record<string, unknown>)
    : undefined;
}

/** The config file's text in its sectioned shape: `{ "provider": {…}, "settings": {…} }`. */
function configText(provider: Record<string, unknown>, settings?: Record<string, unknown>): string {
  return `${JSON.stringify(settings === undefined ? { provider } : { provider, settings }, null, 2)}\n`;
}
