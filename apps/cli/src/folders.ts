import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { UsageError } from './io.js';

/**
 * Creates `dir` and its missing parents (each `mode`), one level at a time. Node's `mkdir(…, {recursive})` retries
 * forever when mkdir answers ENOENT under a parent that exists (it does on /proc), so the walk is ours and bounded.
 * A folder that cannot be made is a configuration problem (exit 2) naming the folder and the reason.
 */
export async function ensureFolder(dir: string, mode = 0o700): Promise<void> {
  const missing: string[] = [];
  for (let current = dir; ; current = dirname(current)) {
    const info = await stat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
      throw unusable(dir, `cannot read ${current} (${error.code ?? error.message})`, error);
    });
    if (info) {
      if (!info.isDirectory()) throw unusable(dir, `${current} is not a folder`);
      break;
    }
    missing.push(current);
    if (dirname(current) === current) break;
  }
  for (const folder of missing.reverse()) {
    try {
      await mkdir(folder, { mode });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && (await stat(folder).catch(() => undefined))?.isDirectory()) continue;
      throw unusable(dir, `mkdir ${folder} failed (${code ?? String(error)})`, error);
    }
  }
}

export const WRITABLE_HINT =
  "Use a folder you can write (birdie's own folder is $BIRDIE_HOME, else ~/.birdie; set BIRDIE_HOME to move it).";

function unusable(dir: string, reason: string, cause?: unknown): UsageError {
  return new UsageError(`cannot create the folder ${dir}: ${reason}. ${WRITABLE_HINT}`, { cause });
}

/**
 * Writes a file that may hold a secret: a new temp file beside it (mode 0600, O_EXCL so nothing planted there is
 * reused or followed), fsync, then rename over `file`. rename replaces a symlink at `file` instead of writing
 * through it, and the content is never readable by others, not even for a moment. The folder is made 0700.
 */
export async function writePrivateFile(file: string, text: string): Promise<void> {
  const dir = dirname(file);
  await ensureFolder(dir);
  await chmod(dir, 0o700);
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
