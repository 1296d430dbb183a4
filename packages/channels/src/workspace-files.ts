import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IncomingFile } from './chat.js';

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
  const dir = join(workspace, 'uploads');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const saved: string[] = [];
  const refused: string[] = [];
  for (const file of files) {
    const name = safeFileName(file.name);
    if (file.size !== undefined && file.size > maxBytes) {
      refused.push(`${name} (${file.size} bytes, over the limit of ${maxBytes})`);
      continue;
    }
    const bytes = await file.download();
    if (bytes.byteLength > maxBytes) {
      refused.push(`${name} (${bytes.byteLength} bytes, over the limit of ${maxBytes})`);
      continue;
    }
    let path = join('uploads', name);
    for (let n = 1; await exists(join(workspace, path)); n++) path = join('uploads', `${n}-${name}`);
    await writeFile(join(workspace, path), bytes, { flag: 'wx', mode: 0o600 });
    saved.push(`${path} (${bytes.byteLength} bytes)`);
  }
  return { saved, refused };
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
