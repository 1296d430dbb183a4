import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { brokenLinkWhy } from './broken-link.js';

/**
 * The text of a file a user or a skill author wrote, or `undefined` when it cannot be read as one: missing, a folder,
 * or not a regular file. Opened without blocking and checked on the open file, so a named pipe (or a device) in its
 * place is refused at once instead of waiting for a writer for ever, as a plain `readFile` would.
 */
export async function readRegularText(file: string): Promise<string | undefined> {
  return (await readRegularTextOrWhy(file)).text;
}

/**
 * `readRegularText` for a file whose absence is fine but whose unreadability is not (the project's settings: its deny
 * rules): `undefined` only when nothing is there; a file that is there but cannot be read as one is an error whose
 * message is why (`it is a folder, not a file`, `permission denied (EACCES)`). A symbolic link to nothing, the file's
 * or a folder's on its way, is there: `it is a symbolic link to …, which does not exist`.
 */
export async function readRegularTextIfPresent(file: string): Promise<string | undefined> {
  const read = await readRegularTextOrWhy(file);
  if (read.why !== undefined) throw new Error(read.why);
  if (read.text === undefined) {
    const broken = await brokenLinkWhy(file);
    if (broken !== undefined) throw new Error(broken);
  }
  return read.text;
}

/** Nothing there at all (or a path through something that is not a folder): a missing file, not an unreadable one. */
const MISSING: ReadonlySet<string> = new Set(['ENOENT', 'ENOTDIR']);

async function readRegularTextOrWhy(file: string): Promise<{ text?: string; why?: string }> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (info.isDirectory()) return { why: 'it is a folder, not a file' };
    if (!info.isFile()) return { why: 'it is not a regular file (a pipe, a socket or a device)' };
    return { text: await handle.readFile('utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && MISSING.has(code)) return {};
    return { why: readFailure(error) };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

function readFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return `permission denied (${code})`;
  if (code === 'EISDIR') return 'it is a folder, not a file';
  // What opening a socket says.
  if (code === 'ENXIO') return 'it is not a regular file (a pipe, a socket or a device)';
  return code ?? (error as Error).message;
}

/**
 * `readFileSync(file, 'utf8')` for a file a user wrote, for a caller that cannot wait (start-up's cheap checks): throws
 * as it does (`ENOENT`, `EACCES`), and throws at once, without a code, for what is not a regular file (a folder, a
 * named pipe, a device), where a plain read of a pipe would block the process until something wrote to it.
 */
export function readRegularTextSync(file: string): string {
  // Looked at before it is opened: opening a pipe, even without blocking, would wake a writer waiting on it. BigInt
  // stats: Node's own `realpathSync` (module resolution) reads the plain stat buffer a synchronous `stat` fills, and
  // stops resolving symbolic links when it last held a pipe; a later import through a link would then load a second
  // copy of a package (or fail to find its dependencies).
  if (!statSync(file, { bigint: true }).isFile()) throw new Error(`${file} is not a regular file`);
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    if (!fstatSync(fd, { bigint: true }).isFile()) throw new Error(`${file} is not a regular file`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}
