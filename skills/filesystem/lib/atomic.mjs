// Writes go to a temporary file in the same folder, then replace the target with one rename: a reader (or a crash)
// sees the old content or the new one, never half of either.
import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * @param {string} path real path of the target (its folder exists)
 * @param {Iterable<Uint8Array | string>} chunks written in order, strings as UTF-8
 * @param {AbortSignal | undefined} signal
 */
export async function writeAtomic(path, chunks, signal) {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  // An existing file keeps its permission bits (open() would apply the umask to them).
  const mode = await stat(path).then(
    (info) => info.mode & 0o7777,
    () => undefined,
  );
  const handle = await open(temp, 'wx', mode ?? 0o666);
  let renamed = false;
  try {
    if (mode !== undefined) await handle.chmod(mode);
    for (const chunk of chunks) {
      signal?.throwIfAborted();
      await handle.writeFile(chunk);
    }
    await handle.sync();
    await handle.close();
    signal?.throwIfAborted();
    await rename(temp, path);
    renamed = true;
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {});
      await rm(temp, { force: true });
    }
  }
}
