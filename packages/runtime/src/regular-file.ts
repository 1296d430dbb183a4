import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * The text of a file a user or a skill author wrote, or `undefined` when it cannot be read as one: missing, a folder,
 * or not a regular file. Opened without blocking and checked on the open file, so a named pipe (or a device) in its
 * place is refused at once instead of waiting for a writer for ever, as a plain `readFile` would.
 */
export async function readRegularText(file: string): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!(await handle.stat()).isFile()) return undefined;
    return await handle.readFile('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
