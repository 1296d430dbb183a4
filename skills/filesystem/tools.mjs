// The filesystem skill's tools, called by birdie's `node:` entrypoint as `(args, context)`. Every path is confined to
// `context.cwd` (the session's working directory) when the runtime passes it, else to the process's working directory;
// content is written as given, byte for byte, never through a shell.
import { lstat, mkdir, readdir, readFile, readlink, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeAtomic } from './lib/atomic.mjs';
import { confine, confineExisting, display, rootOf, sandboxAllows } from './lib/confine.mjs';
import { applyEdit, editArgs } from './lib/edit.mjs';
import { FilesystemError } from './lib/errors.mjs';
import { oneAtATime } from './lib/file-lock.mjs';
import { readImage } from './lib/image.mjs';
import { previewFile, previewFolder } from './lib/preview.mjs';
import { READ_LIMIT_BYTES, readText, sliceText } from './lib/read-text.mjs';
import { runSearch } from './lib/search-pool.mjs';
import { looksBinary } from './lib/text.mjs';

const MAX_LIST_ENTRIES = 1000;
/** A search that has not finished by then is stopped even if the runtime set no timeout. */
const SEARCH_DEADLINE_MS = 60_000;

/**
 * `files`: the application's access to text files (an editor's buffers over the Agent Client Protocol). When it is
 * given, file content is read and written through it, so the model sees unsaved edits and the editor records each
 * write; paths are still confined here first, and listing, searching and folders stay on the disk.
 * @typedef {{
 *   readTextFile(path: string, options?: { line?: number; limit?: number }): Promise<string>;
 *   writeTextFile(path: string, content: string): Promise<void>;
 * }} FileAccess
 * @typedef {{
 *   signal?: AbortSignal;
 *   cwd?: string;
 *   files?: FileAccess;
 *   sandbox?: { access(path: string): 'read-write' | 'read-only' | 'hidden'; hidden: readonly string[] };
 * }} ToolContext
 */

/** @param {{ path: string; start_line?: number; end_line?: number }} args @param {ToolContext} [context] */
export async function read_file(args, context) {
  const { target } = await confineExisting(args.path, context);
  sandboxAllows(target, context, 'read');
  if (!target.exists) await existing(target, 'file');
  // A picture is returned whole as an image (a line range means nothing to it); the editor holds text only.
  if (
    /\.(png|jpe?g|gif|webp)$/i.test(target.path) &&
    args.start_line === undefined &&
    args.end_line === undefined
  ) {
    const image = await readImage(target.path, target.shown);
    if (image) return image;
  }
  const request = {
    start: args.start_line,
    end: args.end_line,
    shown: target.shown,
    signal: context?.signal,
  };
  const read = context?.files
    ? sliceText(await readThrough(context.files, target), request)
    : await readText(target.path, request);
  return `${read.text}${readNote(read, args, target.shown)}`;
}

/**
 * A file's text through the application. It must be a regular file on the disk too: the checks that keep devices and
 * folders out stay the same whoever reads it.
 * @param {FileAccess} files @param {{ path: string; shown: string }} target
 */
async function readThrough(files, target) {
  const info = await stat(target.path);
  if (!info.isFile()) {
    const what = info.isDirectory()
      ? 'is a directory; use list_dir to see what it holds'
      : 'is not a regular file';
    throw new FilesystemError('not-a-file', `"${target.shown}" ${what}.`);
  }
  return files.readTextFile(target.path);
}

/**
 * What to tell the model when the text stops before what it asked for: where it stopped and how to go on.
 * @param {import('./lib/read-text.mjs').ReadResult} read
 * @param {{ start_line?: number; end_line?: number }} args
 * @param {string} shown
 */
function readNote(read, args, shown) {
  const ranged = args.start_line !== undefined || args.end_line !== undefined;
  const untilEnd = args.end_line === undefined ? '' : ` and end_line=${args.end_line}`;
  if (read.cut === 'lines') {
    const what = ranged
      ? `the ${READ_LIMIT_BYTES}-byte limit of one call is reached; this shows lines ${read.first}-${read.last}`
      : `"${shown}" is ${read.size} bytes; this shows lines 1-${read.last}`;
    return `\n[truncated: ${what}. Call read_file with start_line=${read.last + 1}${untilEnd} to read on.]`;
  }
  if (read.cut === 'long-line') {
    return (
      `\n[truncated: line ${read.last} of "${shown}" is longer than ${READ_LIMIT_BYTES} bytes; this shows its first ` +
      `${Buffer.byteLength(read.text)} bytes. search_files or the shell can pick out parts of it; ` +
      `start_line=${read.last + 1} reads the lines after it.]`
    );
  }
  return '';
}

/** @param {{ path?: string }} args @param {ToolContext} [context] */
export async function list_dir(args, context) {
  const root = await rootOf(context);
  const target = await confine(args.path ?? '.', root);
  sandboxAllows(target, context, 'read');
  const info = await existing(target, 'directory');
  if (!info.isDirectory()) {
    throw new FilesystemError('not-a-directory', `"${target.shown}" is a file; use read_file to read it.`);
  }
  const entries = (await readdir(target.path, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  const lines = [];
  for (const entry of entries.slice(0, MAX_LIST_ENTRIES)) {
    context?.signal?.throwIfAborted();
    const full = `${target.path}/${entry.name}`;
    if (entry.isDirectory()) lines.push(`${entry.name}/`);
    else if (entry.isSymbolicLink()) lines.push(`${entry.name} -> ${await readlink(full)}`);
    else if (entry.isFile()) lines.push(`${entry.name}  (${(await lstat(full)).size} bytes)`);
    else lines.push(`${entry.name}  (special file)`);
  }
  const where = display(root, target.path);
  const header = `${where}: ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`;
  const more =
    entries.length > MAX_LIST_ENTRIES ? [`[${entries.length - MAX_LIST_ENTRIES} more not shown]`] : [];
  return [header, ...lines, ...more].join('\n');
}

/** @param {{ path: string; content: string }} args @param {ToolContext} [context] */
export async function write_file(args, context) {
  const content = requireContent(args);
  const root = await rootOf(context);
  const target = await writable(args.path, root, context);
  await oneAtATime(target.path, async () => {
    if (context?.files) await context.files.writeTextFile(target.path, content);
    else await writeAtomic(target.path, [content], context?.signal);
  });
  return `Wrote ${Buffer.byteLength(content)} bytes to ${display(root, target.path)}.`;
}

/** @param {{ path: string; content: string }} args @param {ToolContext} [context] */
export async function append_file(args, context) {
  const content = requireContent(args);
  const root = await rootOf(context);
  const target = await writable(args.path, root, context);
  return oneAtATime(target.path, () => appendNow(target, content, root, context));
}

/**
 * @param {{ path: string; exists: boolean; shown: string }} target @param {string} content @param {string} root
 * @param {ToolContext | undefined} context
 */
async function appendNow(target, content, root, context) {
  // Whether the file exists is asked again: a change queued before this one may have created it.
  target = {
    ...target,
    exists: await stat(target.path).then(
      () => true,
      () => false,
    ),
  };
  if (context?.files) {
    // The application's copy is the one to extend: it may hold edits the disk does not have yet.
    const before = target.exists ? await readThrough(context.files, target) : '';
    await context.files.writeTextFile(target.path, before + content);
    const added = Buffer.byteLength(content);
    return target.exists
      ? `Appended ${added} bytes to ${display(root, target.path)} (now ${Buffer.byteLength(before) + added} bytes).`
      : `Created ${display(root, target.path)} with ${added} bytes.`;
  }
  if (!target.exists) {
    await writeAtomic(target.path, [content], context?.signal);
    return `Created ${display(root, target.path)} with ${Buffer.byteLength(content)} bytes.`;
  }
  // Copy + rename keeps the append atomic too: no reader ever sees a half-appended file.
  const before = await readFile(target.path, { signal: context?.signal });
  await writeAtomic(target.path, [before, content], context?.signal);
  const added = Buffer.byteLength(content);
  return `Appended ${added} bytes to ${display(root, target.path)} (now ${before.length + added} bytes).`;
}

/** What write_file would change (nothing is written). @param {{ path: string; content: string }} args @param {ToolContext} [context] */
export async function preview_write_file(args, context) {
  const content = requireContent(args);
  return previewFile(args.path, () => content, context);
}

/** What append_file would change (nothing is written). @param {{ path: string; content: string }} args @param {ToolContext} [context] */
export async function preview_append_file(args, context) {
  const content = requireContent(args);
  return previewFile(args.path, (before) => before + content, context);
}

/** The folder create_directory would make (nothing is made). @param {{ path: string }} args @param {ToolContext} [context] */
export async function preview_create_directory(args, context) {
  return previewFolder(args.path, context);
}

/** The most bytes edit_file reads and rewrites: it holds the whole file in memory, twice. */
const EDIT_LIMIT_BYTES = 10 * 1024 * 1024;

/**
 * @param {{ path: string; old_string: string; new_string: string; replace_all?: boolean }} args
 * @param {ToolContext} [context]
 */
export async function edit_file(args, context) {
  const edit = editArgs(args);
  const root = await rootOf(context);
  const target = await confine(args.path, root);
  sandboxAllows(target, context, 'write');
  const after = await oneAtATime(target.path, async () => {
    // Whether the file exists is asked again: a change queued before this one may have created it.
    const now = {
      ...target,
      exists: await stat(target.path).then(
        () => true,
        () => false,
      ),
    };
    const changed = applyEdit(await editableText(now, context), edit, target.shown);
    if (context?.files) await context.files.writeTextFile(target.path, changed.text);
    else await writeAtomic(target.path, [changed.text], context?.signal);
    return changed;
  });
  const where = after.count === 1 ? `line ${after.lines[0]}` : `lines ${after.lines.join(', ')}`;
  const what = after.count === 1 ? '1 occurrence' : `${after.count} occurrences`;
  return `Edited ${display(root, target.path)}: replaced ${what} (${where}).`;
}

/** What edit_file would change (nothing is written). @param {{ path: string; old_string: string; new_string: string; replace_all?: boolean }} args @param {ToolContext} [context] */
export async function preview_edit_file(args, context) {
  const edit = editArgs(args);
  // A file that does not exist yet has no text to find: the same refusal as the tool's.
  const root = await rootOf(context);
  const target = await confine(args.path, root);
  if (!target.exists) await existing(target, 'file');
  return previewFile(args.path, (before) => applyEdit(before, edit, target.shown).text, context);
}

/**
 * The whole text of an existing regular text file (through the application when it has the file).
 * @param {{ path: string; exists: boolean; shown: string }} target @param {ToolContext | undefined} context
 */
async function editableText(target, context) {
  const info = await existing(target, 'file');
  if (!info.isFile()) {
    const what = info.isDirectory() ? 'is a directory' : 'is not a regular file';
    throw new FilesystemError('not-a-file', `"${target.shown}" ${what}; edit_file changes text files.`);
  }
  if (info.size > EDIT_LIMIT_BYTES) {
    throw new FilesystemError(
      'too-large',
      `"${target.shown}" is ${info.size} bytes; edit_file edits files up to ${EDIT_LIMIT_BYTES} bytes.`,
    );
  }
  if (context?.files) return context.files.readTextFile(target.path);
  const bytes = await readFile(target.path, { signal: context?.signal });
  if (looksBinary(bytes)) {
    throw new FilesystemError('binary-file', `"${target.shown}" looks like a binary file; it is not edited.`);
  }
  const text = bytes.toString('utf8');
  // Bytes that are not UTF-8 would come back as U+FFFD and be written so: the rest of the file must survive an edit.
  if (Buffer.byteLength(text) !== bytes.length || !Buffer.from(text).equals(bytes)) {
    throw new FilesystemError('not-utf8', `"${target.shown}" is not UTF-8 text; edit_file would damage it.`);
  }
  return text;
}

/** @param {{ path: string }} args @param {ToolContext} [context] */
export async function create_directory(args, context) {
  const root = await rootOf(context);
  const target = await confine(args.path, root);
  sandboxAllows(target, context, 'write');
  if (target.exists) {
    if ((await stat(target.path)).isDirectory()) return `${display(root, target.path)} already exists.`;
    throw new FilesystemError('not-a-directory', `"${target.shown}" already exists and is a file.`);
  }
  await mkdir(target.path, { recursive: true });
  return `Created ${display(root, target.path)}/.`;
}

/**
 * @param {{ pattern: string; path?: string; literal?: boolean; ignore_case?: boolean; max_results?: number }} args
 * @param {ToolContext} [context]
 */
export async function search_files(args, context) {
  if (typeof args.pattern !== 'string' || args.pattern.length === 0) {
    throw new FilesystemError('bad-pattern', 'A non-empty search pattern is required.');
  }
  const root = await rootOf(context);
  const target = await existingPath(args.path ?? '.', root);
  sandboxAllows(target, context, 'read');
  const request = {
    root,
    start: target.path,
    pattern: args.pattern,
    literal: args.literal === true,
    ignoreCase: args.ignore_case === true,
    maxResults: clamp(args.max_results ?? 100, 1, 1000),
    ...(context?.sandbox ? { hidden: [...context.sandbox.hidden] } : {}),
  };
  // A regular expression from a model can backtrack for minutes, and a blocked event loop cannot be timed out; in a
  // worker it can always be stopped.
  return runSearch(request, context?.signal, SEARCH_DEADLINE_MS);
}

/**
 * @param {{ pattern: string; path?: string; max_results?: number }} args
 * @param {ToolContext} [context]
 */
export async function glob(args, context) {
  const root = await rootOf(context);
  const target = await confine(args.path ?? '.', root);
  sandboxAllows(target, context, 'read');
  const info = await existing(target, 'directory');
  if (!info.isDirectory()) {
    throw new FilesystemError(
      'not-a-directory',
      `"${target.shown}" is a file; give the folder to search in.`,
    );
  }
  const maxResults = clamp(args.max_results ?? 200, 1, 1000);
  // Loaded on first use: the walker and the gitignore reader cost every other tool nothing (start-up, memory).
  const { globFiles } = await import('./lib/glob.mjs');
  const found = await globFiles({
    root,
    start: target.path,
    pattern: args.pattern,
    maxResults,
    ...(context?.sandbox ? { hidden: context.sandbox.hidden } : {}),
    ...(context?.signal ? { signal: context.signal } : {}),
  });
  if (found.total === 0) return `No files match "${args.pattern}" in ${display(root, target.path)}`;
  const count = `${found.total} ${found.total === 1 ? 'file matches' : 'files match'}`;
  const more =
    found.total > found.paths.length
      ? [`[${found.total - found.paths.length} more not shown: narrow the pattern or raise max_results]`]
      : [];
  return [`${count} "${args.pattern}" in ${display(root, target.path)}:`, ...found.paths, ...more].join('\n');
}

/** @param {{ content?: unknown }} args @returns {string} */
function requireContent(args) {
  if (typeof args.content !== 'string') {
    throw new FilesystemError('bad-content', 'content must be a string (the exact text to write).');
  }
  return args.content;
}

/**
 * A write target: confined, allowed by the sandbox, not a folder, with its parent folders created.
 * @param {unknown} path @param {string} root @param {ToolContext | undefined} context
 */
async function writable(path, root, context) {
  const target = await confine(path, root);
  sandboxAllows(target, context, 'write');
  if (target.exists && (await stat(target.path)).isDirectory()) {
    throw new FilesystemError('not-a-file', `"${target.shown}" is a directory; give a file path.`);
  }
  await mkdir(dirname(target.path), { recursive: true });
  return target;
}

/** @param {unknown} path @param {string} root */
async function existingPath(path, root) {
  const target = await confine(path, root);
  await existing(target, 'path');
  return target;
}

/** @param {{ path: string; exists: boolean; shown: string }} target @param {string} what */
async function existing(target, what) {
  if (!target.exists) {
    throw new FilesystemError(
      'not-found',
      `No such ${what}: "${target.shown}". Use list_dir to see what exists.`,
    );
  }
  return stat(target.path);
}

/** @param {unknown} value @param {number} min @param {number} max */
function clamp(value, min, max) {
  const number = typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : min;
  return Math.min(max, Math.max(min, number));
}
