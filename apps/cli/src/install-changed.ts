import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where birdie's own modules are: the built CLI's chunks all sit in one folder (`dist/`), this module among them. */
const OWN_FOLDER = dirname(fileURLToPath(import.meta.url));

/**
 * What to tell the user when `error` is one of birdie's own modules gone missing while it ran: an upgrade or a
 * reinstall replaced its files (under new names), and a part it loads only when needed is no longer there. Undefined
 * for any other error — a missing dependency or a skill's module is not this.
 */
export function installChangedMessage(error: unknown): string | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND')
    return undefined;
  const url = (error as { url?: unknown }).url;
  if (typeof url !== 'string' || !url.startsWith('file:')) return undefined;
  const missing = fileURLToPath(url);
  if (dirname(missing) !== OWN_FOLDER) return undefined;
  return `its installed files changed while it ran (upgraded or reinstalled?): ${basename(missing)} is gone; run the command again`;
}
