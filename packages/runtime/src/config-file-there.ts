import { lstatSync } from 'node:fs';

/**
 * Whether anything is at a config file's path: a file, a folder, a pipe, or a symbolic link to nothing. Reading it then
 * says what is wrong with it (`readConfigFile` names a folder, a pipe, a link whose target is gone); only nothing at all
 * is a file that is simply not there. A link to nothing is not nothing: it held the user's settings, deny rules among
 * them, and reading on without them would run what they forbid.
 *
 * BigInt stats: Node's module resolution reads the plain stat buffer a synchronous `stat` fills, and stops following
 * links when it last held a pipe (see `readRegularTextSync`).
 */
export function configFileThere(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false, bigint: true }) !== undefined;
  } catch (error) {
    // A path through something that is not a folder has nothing at its end; anything else (no permission to look)
    // is there as far as the reader can tell, and reading it says why it cannot.
    return (error as NodeJS.ErrnoException).code !== 'ENOTDIR';
  }
}
