import { access, lstat, mkdir, realpath, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import type { IncomingFile } from './chat.js';
import { downloadWithin } from './download-within.js';
import { ChannelError } from './errors.js';

/** The folder, under the workspace, that chat uploads land in. */
const UPLOADS = ['uploads'];

/** A file name fit for the workspace: its last path part, other characters than letters, digits, `._-` replaced. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '');
  return cleaned.slice(0, 120) || 'file';
}

/**
 * Saves files a chat sent into the session's workspace (`uploads/NAME`, never over a file already there: a number is
 * added), refusing any over `maxBytes`. Returns one line per file for the model and the user.
 */
export async function saveFiles(
  files: readonly IncomingFile[],
  workspace: string,
  maxBytes: number,
): Promise<{ saved: string[]; refused: string[] }> {
  const dir = join(workspace, ...UPLOADS);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await assertInsideWorkspace(workspace, UPLOADS);
  const saved: string[] = [];
  const refused: string[] = [];
  for (const file of files) {
    const name = safeFileName(file.name);
    const bytes = await downloadWithin(file, maxBytes);
    if (typeof bytes === 'string') {
      refused.push(`${name} (${bytes})`);
      continue;
    }
    let path = join(...UPLOADS, name);
    for (let n = 1; await exists(join(workspace, path)); n++) path = join(...UPLOADS, `${n}-${name}`);
    await writeFile(join(workspace, path), bytes, { flag: 'wx', mode: 0o600 });
    saved.push(`${path} (${bytes.byteLength} bytes)`);
  }
  return { saved, refused };
}

/**
 * The channel process is not sandboxed, but the workspace is writable by sandboxed tools: any folder between the
 * workspace and an upload may have been replaced by a symlink (`mkdir -p` accepts one, `wx` only refuses a link as
 * the last part). Throws `ChannelError('unsafe-upload-folder')` unless every part is a real folder inside the workspace.
 */
async function assertInsideWorkspace(workspace: string, parts: readonly string[]): Promise<void> {
  const root = await realpath(workspace);
  for (let i = 1; i <= parts.length; i++) {
    const path = join(workspace, ...parts.slice(0, i));
    const shown = parts.slice(0, i).join('/');
    const stats = await lstat(path);
    const inside = relative(root, await realpath(path));
    if (stats.isSymbolicLink() || !stats.isDirectory() || inside.startsWith('..') || isAbsolute(inside))
      throw new ChannelError(
        'unsafe-upload-folder',
        `\`${shown}\` in your workspace is a link or leads outside the workspace; remove it (or make it a plain folder) and send the file again`,
      );
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
