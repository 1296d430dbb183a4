import { randomBytes } from 'node:crypto';
import { chmod, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { StoreError } from '@birdie/store/errors';
import { ensureFolder as makeFolder } from '@birdie/store/folder';
import { UsageError } from './errors.js';

/**
 * Creates `dir` and its missing parents (each `mode`) with the store's bounded walk (Node's recursive mkdir spins
 * forever under /proc). A folder that cannot be made is a configuration problem (exit 2) naming the folder and why,
 * then `hint` (by default, how to choose another birdie folder).
 */
export async function ensureFolder(dir: string, mode = 0o700, hint = WRITABLE_HINT): Promise<void> {
  try {
    makeFolder(dir, mode);
  } catch (error) {
    if (error instanceof StoreError && error.code === 'home-unusable') {
      throw new UsageError(`${error.message}. ${hint}`, { cause: error });
    }
    throw error;
  }
}

export const WRITABLE_HINT =
  "Use a folder you can write (birdie's own folder is $BIRDIE_HOME, else ~/.birdie; set BIRDIE_HOME to move it).";

/**
 * Writes a file that may hold a secret: a new temp file beside it (mode 0600, O_EXCL so nothing planted there is
 * reused or followed), fsync, then rename over `file`. rename replaces a symlink at `file` instead of writing
 * through it, and the content is never readable by others, not even for a moment. A missing folder is made 0700;
 * an existing one is made 0700 only when it is birdie's own (`ownFolder`): a file the user named may sit in a folder
 * others use (`--config /tmp/team.json`), whose mode is theirs.
 */
export async function writePrivateFile(
  file: string,
  text: string,
  { ownFolder = false }: { ownFolder?: boolean } = {},
): Promise<void> {
  const dir = dirname(file);
  await ensureFolder(dir);
  if (ownFolder) await chmod(dir, 0o700);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
