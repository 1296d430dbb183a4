// What write_file, append_file and create_directory would change, computed without changing anything: the runtime
// shows it in the approval question. Paths go through the same confinement as the tools themselves, so a path the
// tool would refuse is refused here too, and nothing outside the working directory is ever read.
import { open, stat } from 'node:fs/promises';
import { confine, display, rootOf, sandboxAllows } from './confine.mjs';
import { FilesystemError } from './errors.mjs';

/** A file larger than this is named in the preview without its text (the question stays small). */
export const PREVIEW_LIMIT_BYTES = 64 * 1024;

/**
 * @typedef {{ kind: 'file'; path: string; before?: string | null; after?: string; note?: string }
 *   | { kind: 'folder'; path: string; note?: string }} PlannedChange
 * @typedef {import('../tools.mjs').ToolContext} ToolContext
 */

/**
 * The file as it is now: its text, `null` when it does not exist, or a note when it cannot be shown. Only regular
 * files are opened (a pipe or a device would block or never end), and only up to the limit.
 * @param {{ path: string; exists: boolean; shown: string }} target @param {ToolContext | undefined} context
 * @returns {Promise<{ text: string | null } | { note: string }>}
 */
async function current(target, context) {
  if (!target.exists) return { text: null };
  const info = await stat(target.path);
  if (info.isDirectory())
    throw new FilesystemError('not-a-file', `"${target.shown}" is a directory; give a file path.`);
  if (!info.isFile()) return { note: 'not a regular file' };
  if (info.size > PREVIEW_LIMIT_BYTES) return { note: `${info.size} bytes, too large to show` };
  // The application's copy (an editor's buffer) is what the tool would change.
  if (context?.files) return { text: await context.files.readTextFile(target.path) };
  const handle = await open(target.path, 'r');
  try {
    const buffer = Buffer.alloc(PREVIEW_LIMIT_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > PREVIEW_LIMIT_BYTES) return { note: 'too large to show' };
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.includes(0)) return { note: 'not a text file' };
    return { text: bytes.toString('utf8') };
  } finally {
    await handle.close();
  }
}

/**
 * @param {unknown} path @param {(before: string) => string} change @param {ToolContext | undefined} context
 * @returns {Promise<{ changes: PlannedChange[] }>}
 */
export async function previewFile(path, change, context) {
  const root = await rootOf(context);
  const target = await confine(path, root);
  const shown = display(root, target.path);
  // What the sandbox hides never reaches the approval question (it is stored and shown to clients), as the tool
  // itself would refuse it.
  sandboxAllows({ path: target.path, shown }, context, 'write');
  const now = await current(target, context);
  if ('note' in now) return { changes: [{ kind: 'file', path: shown, note: now.note }] };
  const after = change(now.text ?? '');
  if (Buffer.byteLength(after) > PREVIEW_LIMIT_BYTES)
    return {
      changes: [
        {
          kind: 'file',
          path: shown,
          note: `${Buffer.byteLength(after)} bytes after the change, too large to show`,
        },
      ],
    };
  return { changes: [{ kind: 'file', path: shown, before: now.text, after }] };
}

/** @param {unknown} path @param {ToolContext | undefined} context @returns {Promise<{ changes: PlannedChange[] }>} */
export async function previewFolder(path, context) {
  const root = await rootOf(context);
  const target = await confine(path, root);
  const shown = display(root, target.path);
  sandboxAllows({ path: target.path, shown }, context, 'write');
  if (target.exists) {
    if ((await stat(target.path)).isDirectory())
      return { changes: [{ kind: 'folder', path: shown, note: 'already exists; nothing changes' }] };
    throw new FilesystemError('not-a-directory', `"${target.shown}" already exists and is a file.`);
  }
  return { changes: [{ kind: 'folder', path: shown }] };
}
