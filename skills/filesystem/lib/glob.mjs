// glob's matching: tinyglobby walks the folder (without following links) and matches the pattern; `ignore` applies
// each .gitignore the way git does, from the one nearest the file up to the working directory's. A pattern can only
// name places under the folder it starts from: absolute patterns and `..` segments are refused before any walk.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import ignore from 'ignore';
import { glob as walk } from 'tinyglobby';
import { FilesystemError } from './errors.mjs';

/** Folders never listed: git's own, and installed packages unless the pattern names them. */
const ALWAYS_SKIPPED = ['**/.git/**'];
const PACKAGES = '**/node_modules/**';

/**
 * @typedef {{ root: string; start: string; pattern: string; maxResults: number; signal?: AbortSignal; hidden?: readonly string[] }} GlobRequest
 *   hidden: what the sandbox hides (real paths), under it: left out
 * @typedef {{ paths: string[]; total: number }} GlobResult paths relative to the root, sorted, at most maxResults
 */

/** @param {unknown} pattern @returns {string} */
export function checkPattern(pattern) {
  if (typeof pattern !== 'string' || pattern.trim() === '') {
    throw new FilesystemError('bad-pattern', 'A glob pattern is required, such as "**/*.ts" or "src/*.md".');
  }
  if (pattern.includes('\0')) throw new FilesystemError('bad-pattern', 'Patterns may not contain NUL bytes.');
  if (pattern.startsWith('/') || /^[A-Za-z]:[\\/]/.test(pattern)) {
    throw new FilesystemError(
      'outside-root',
      `Refused "${pattern}": the pattern is matched under the folder given by path; write it relative to it.`,
    );
  }
  if (pattern.split(/[\\/]+/).includes('..')) {
    throw new FilesystemError(
      'outside-root',
      `Refused "${pattern}": patterns may not contain ".." segments.`,
    );
  }
  return pattern;
}

/** @param {GlobRequest} request @param {string} path relative to the root */
function hiddenBySandbox(request, path) {
  const full = join(request.root, path);
  return (request.hidden ?? []).some((hidden) => full === hidden || full.startsWith(`${hidden}${sep}`));
}

/** @param {GlobRequest} request @returns {Promise<GlobResult>} */
export async function globFiles(request) {
  const pattern = checkPattern(request.pattern);
  const skipped = pattern.includes('node_modules') ? ALWAYS_SKIPPED : [...ALWAYS_SKIPPED, PACKAGES];
  const options = {
    cwd: request.start,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: skipped,
    ...(request.signal ? { signal: request.signal } : {}),
  };
  const [found, ignored] = await Promise.all([walk(pattern, options), gitignored(request, skipped)]);
  const paths = found
    .map((path) => relative(request.root, join(request.start, path)).split(sep).join('/'))
    .filter((path) => !ignored(path))
    .filter((path) => !hiddenBySandbox(request, path))
    .sort();
  return { paths: paths.slice(0, request.maxResults), total: paths.length };
}

/**
 * A test for "git would ignore this path" (relative to the root): every .gitignore between the root and the start
 * folder, and under the start folder. The nearest file with a rule for the path decides, as in git.
 * @param {GlobRequest} request @param {string[]} skipped
 * @returns {Promise<(path: string) => boolean>}
 */
async function gitignored(request, skipped) {
  const below = await walk('**/.gitignore', {
    cwd: request.start,
    dot: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: skipped,
    ...(request.signal ? { signal: request.signal } : {}),
  });
  const above = [];
  for (let dir = request.start; dir !== request.root && dir.startsWith(request.root); dir = dirname(dir)) {
    above.push(join(relative(request.start, dirname(dir)), '.gitignore'));
  }
  const files = [...new Set([...above, ...below])].map((file) => join(request.start, file));
  /** @type {{ folder: string; rules: import('ignore').Ignore }[]} */
  const layers = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const folder = relative(request.root, dirname(file)).split(sep).join('/');
    layers.push({ folder, rules: ignore().add(text) });
  }
  // Deepest first: a nested .gitignore's rule (a `!keep.log`) wins over its parents'.
  layers.sort((a, b) => b.folder.length - a.folder.length);
  return (path) => {
    for (const { folder, rules } of layers) {
      if (folder !== '' && !path.startsWith(`${folder}/`)) continue;
      const verdict = rules.test(folder === '' ? path : path.slice(folder.length + 1));
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  };
}
