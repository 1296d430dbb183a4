import { constants } from 'node:fs';
import { lstat, open, readlink, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { MEMORY_FILE_NAME, memoryFilePaths } from '@birdie/registry';
import type { MemoryFile } from './types.js';

export { MEMORY_FILE_NAME };

const DEFAULT_MAX_FILE_BYTES = 256 * 1024;

/**
 * The project memory tier: each file in a `<memory-file>` block, general to specific as the application lists
 * them. When the texts exceed `budget` characters the most specific files (listed last: the working directory's)
 * keep their room first; a file cut short says so, and files with no room left are named in one line. A pure
 * function of its input, so equal files give a byte-identical prompt.
 */
export function memoryFilesTier(files: readonly MemoryFile[], budget: number): string {
  const kept = files.filter((f) => f.text.trim() !== '');
  if (kept.length === 0) return '';
  const room = new Array<number>(kept.length).fill(0);
  let left = budget;
  for (let i = kept.length - 1; i >= 0; i -= 1) {
    const size = (kept[i] as MemoryFile).text.trim().length;
    room[i] = Math.min(size, left);
    left -= room[i] as number;
  }
  const blocks: string[] = [];
  const dropped: string[] = [];
  kept.forEach((file, i) => {
    const text = file.text.trim();
    const n = room[i] as number;
    if (n === 0) {
      dropped.push(file.path);
      return;
    }
    const cut = n < text.length ? `\n[truncated: ${text.length - n} more characters]` : '';
    blocks.push(`<memory-file path="${file.path}">\n${text.slice(0, n)}${cut}\n</memory-file>`);
  });
  if (dropped.length > 0)
    blocks.push(
      `(${dropped.length} more memory file${dropped.length === 1 ? '' : 's'} left out: ${dropped.join(', ')})`,
    );
  // The heading names the files' kinds (`AGENTS.md`, `MEMORY.md`, …), so equal names give an equal heading.
  const names = [...new Set(kept.map((file) => basename(file.path)))].join(', ') || MEMORY_FILE_NAME;
  return `# Project instructions (${names})\n${blocks.join('\n\n')}`;
}

export interface FindMemoryFilesOptions {
  /** Where the session works; its `AGENTS.md` and those of its parents up to the repository root are read. */
  cwd: string;
  /** The user's own file (the CLI passes `~/.birdie/AGENTS.md`); listed first, read when it exists. */
  userFile?: string;
  /** More of the user's own files (`~/.birdie/MEMORY.md`, …), listed after `userFile`, read when they exist. */
  userFiles?: readonly string[];
  /**
   * The memory files' names looked for in each project folder, in this order (the `memory_files` setting, e.g.
   * `['AGENTS.md', 'CLAUDE.md']`). Default `['AGENTS.md']`.
   */
  names?: readonly string[];
  /** `false` leaves the project's files out (an untrusted workspace). Default true. */
  project?: boolean;
  /** Bytes read per file at most. Default 256 KiB. */
  maxFileBytes?: number;
  /**
   * Told of each file that is there but cannot be read (a folder or a pipe in its place, no read permission, a
   * symbolic link to nothing), with why: `it is a folder, not a file`. The file is left out; a missing one is not
   * reported.
   */
  onUnreadable?(path: string, why: string): void;
}

const NOT_REGULAR = 'it is not a regular file (a pipe, a socket or a device)';

/**
 * A memory file's text, `{}` when nothing is there, or why it cannot be read. Opened without blocking and checked on
 * the open file: a named pipe in its place would otherwise wait for a writer for ever, and the run with it.
 */
async function readText(path: string, maxBytes: number): Promise<{ text?: string; why?: string }> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // Looked at first: opening a pipe, even without blocking, would wake a writer waiting on it.
    const seen = await stat(path);
    if (seen.isDirectory()) return { why: 'it is a folder, not a file' };
    if (!seen.isFile()) return { why: NOT_REGULAR };
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const info = await handle.stat();
    if (info.isDirectory()) return { why: 'it is a folder, not a file' };
    if (!info.isFile()) return { why: NOT_REGULAR };
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, bytesRead).toString('utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') return { why: 'it is a folder, not a file' };
    // What opening a socket says.
    if (code === 'ENXIO') return { why: NOT_REGULAR };
    if (code === 'EACCES' || code === 'EPERM') return { why: `permission denied (${code})` };
    if (code === 'ENOENT') return (await brokenLink(path)) ?? {};
    if (code === 'ENOTDIR') return {};
    return { why: code ?? (error as Error).message };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** A missing file that is a symbolic link to nothing: someone put it there, so it is named rather than skipped. */
async function brokenLink(path: string): Promise<{ why: string } | undefined> {
  try {
    if (!(await lstat(path)).isSymbolicLink()) return undefined;
    return { why: `it is a symbolic link to ${await readlink(path)}, which does not exist` };
  } catch {
    return undefined;
  }
}

/**
 * The memory files of a session, general to specific: `userFile` and `userFiles`, then `AGENTS.md` (or each of
 * `names`) from the repository root (the nearest folder above `cwd` holding `.git`) down to `cwd`; outside a
 * repository only `cwd`'s. A file that is there but cannot be read is left out and reported to `onUnreadable`.
 * Deciding whether the project is trusted is the application's job (`project: false`).
 */
export async function findMemoryFiles(options: FindMemoryFilesOptions): Promise<MemoryFile[]> {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  // The registry's rule, which its trust digest covers too: the repository root down to `cwd`.
  const project = options.project === false ? [] : await memoryFilePaths(options.cwd, options.names);
  const own = [...(options.userFile ? [options.userFile] : []), ...(options.userFiles ?? [])];
  const paths = [...own.map((path) => resolve(path)), ...project];
  const files: MemoryFile[] = [];
  for (const path of new Set(paths)) {
    const { text, why } = await readText(path, maxBytes);
    if (text !== undefined) files.push({ path, text });
    else if (why !== undefined) options.onUnreadable?.(path, why);
  }
  return files;
}
