// Runs in a worker thread (see search_files): walks the tree under `start` and matches each text line.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { looksBinary } from './text.mjs';

const SKIPPED_FOLDERS = new Set(['.git', 'node_modules', '.hg', '.svn']);
const MAX_FILE_BYTES = 5 * 1024 * 1024;
const MAX_LINE_CHARS = 300;

/** @param {{ root: string; start: string; pattern: string; literal: boolean; ignoreCase: boolean; maxResults: number; hidden?: string[] }} request */
async function search(request) {
  const source = request.literal ? request.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : request.pattern;
  let regex;
  try {
    regex = new RegExp(source, request.ignoreCase ? 'iu' : 'u');
  } catch (error) {
    return {
      ok: false,
      code: 'bad-pattern',
      message: `${/** @type {Error} */ (error).message}. Pass literal: true to search for the text as it is.`,
    };
  }
  const matches = [];
  let filesSearched = 0;
  let limited = false;
  for await (const file of walk(request.start, new Set(request.hidden ?? []))) {
    const info = await stat(file);
    if (info.size > MAX_FILE_BYTES) continue;
    const bytes = await readFile(file);
    if (looksBinary(bytes)) continue;
    filesSearched += 1;
    const lines = bytes.toString('utf8').split('\n');
    for (let index = 0; index < lines.length; index += 1) {
      const line = (lines[index] ?? '').replace(/\r$/, '');
      if (!regex.test(line)) continue;
      if (matches.length === request.maxResults) {
        limited = true;
        break;
      }
      const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
      matches.push(`${shown(request.root, file)}:${index + 1}: ${text}`);
    }
    if (limited) break;
  }
  const where = shown(request.root, request.start);
  if (matches.length === 0) {
    return {
      ok: true,
      text: `No matches for /${request.pattern}/ in ${where} (${filesSearched} ${filesSearched === 1 ? 'file' : 'files'} searched).`,
    };
  }
  const tail = limited ? [`[stopped at ${request.maxResults} matches; narrow the pattern or the path]`] : [];
  return { ok: true, text: [...matches, ...tail].join('\n') };
}

/**
 * Files under `start` in a stable order; symbolic links are not followed, so the walk cannot leave the root.
 * Paths in `hidden` (what the sandbox hides, under it) are skipped.
 * @param {string} start
 * @param {Set<string>} hidden
 * @returns {AsyncGenerator<string>}
 */
async function* walk(start, hidden) {
  const info = await stat(start);
  if (info.isFile()) {
    yield start;
    return;
  }
  const entries = (await readdir(start, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    const full = join(start, entry.name);
    if (hidden.has(full)) continue;
    if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) yield* walk(full, hidden);
    else if (entry.isFile()) yield full;
  }
}

/** @param {string} root @param {string} path */
function shown(root, path) {
  const rel = relative(root, path);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

// One request at a time: search-pool.mjs never gives a busy worker a second request.
parentPort?.on('message', (/** @type {any} */ request) => {
  search(request).then(
    (reply) => parentPort?.postMessage(reply),
    (error) =>
      parentPort?.postMessage({ ok: false, code: 'search-failed', message: String(error?.message ?? error) }),
  );
});
