// Every path the model names is resolved inside one root (the session's working directory). The checks run on real
// paths (symlinks followed), so a link that points outside the root is caught however it is reached.
import { lstat, readlink, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FilesystemError } from './errors.mjs';

/**
 * The root the tools are confined to: the `cwd` the runtime passes in the call context, else the process's.
 * @param {{ cwd?: string } | undefined} context
 */
export async function rootOf(context) {
  const root = context?.cwd ?? process.cwd();
  try {
    return await realpath(root);
  } catch (error) {
    throw new FilesystemError('no-root', `The working directory ${root} does not exist.`, error);
  }
}

/** @param {string} root @param {string} candidate */
export function isInside(root, candidate) {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** @param {string} root @param {string} absolute */
export function display(root, absolute) {
  const rel = relative(root, absolute);
  return rel === '' ? '.' : rel.split(sep).join('/');
}

/**
 * Checks the text of a path before touching the disk.
 * @param {unknown} value
 * @param {string} root
 * @returns {string} the absolute, lexically normalised path
 */
function lexical(value, root) {
  if (typeof value !== 'string' || value.length === 0) {
    throw new FilesystemError(
      'bad-path',
      'A path is required (a string, relative to the working directory).',
    );
  }
  if (value.includes('\0')) throw new FilesystemError('bad-path', 'Paths may not contain NUL bytes.');
  if (value.split(/[\\/]+/).includes('..')) {
    throw new FilesystemError(
      'outside-root',
      `Refused "${value}": paths may not contain ".." segments. Use a path relative to the working directory.`,
    );
  }
  // Whether an absolute path is inside is decided on real paths (in confine): the root may have been reached through
  // a symbolic link (macOS's /tmp is /private/tmp), so a path under the name the user knows must still be accepted.
  return resolve(root, value);
}

/**
 * Resolves a path the model gave to a real path inside the root. The target may not exist yet (for writes): then its
 * nearest existing ancestor is checked instead, and the missing tail is appended to that ancestor's real path.
 * @param {unknown} value
 * @param {string} root real path of the root
 * @returns {Promise<{ path: string; exists: boolean; shown: string }>}
 */
export async function confine(value, root) {
  const absolute = lexical(value, root);
  const shown = String(value);
  let existing = absolute;
  const missing = [];
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!isInside(root, real)) throw outside(shown, isInside(root, absolute));
      const path = missing.length === 0 ? real : join(real, ...missing.reverse());
      return { path, exists: missing.length === 0, shown };
    } catch (error) {
      if (error instanceof FilesystemError) throw error;
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'ENOENT') throw error;
      await refuseDanglingLink(existing, shown, root, isInside(root, absolute));
      missing.push(existing.slice(dirname(existing).length + 1));
      existing = dirname(existing);
    }
  }
}

/**
 * `rootOf` + `confine` for a path that usually exists (a read), in one realpath call when it can: a small read's
 * time is mostly round trips to the thread pool. Why one is enough: a real path has no symbolic link in it, so when
 * the target's real path lies under the working directory as given (absolute and already normalised), every folder
 * of that directory is a real one: it is its own real path, the root, and the target is inside it. Anything else (a
 * directory reached through a link, a missing target, a link out) goes through `rootOf` and `confine`, for their
 * exact answers and messages.
 * @param {unknown} value
 * @param {{ cwd?: string } | undefined} context
 * @returns {Promise<{ root: string; target: { path: string; exists: boolean; shown: string } }>}
 */
export async function confineExisting(value, context) {
  const cwd = context?.cwd ?? process.cwd();
  if (isAbsolute(cwd) && resolve(cwd) === cwd) {
    const real = await realpath(lexical(value, cwd)).catch(() => undefined);
    if (real !== undefined && isInside(cwd, real)) {
      return { root: cwd, target: { path: real, exists: true, shown: String(value) } };
    }
  }
  const root = await rootOf(context);
  return { root, target: await confine(value, root) };
}

/**
 * A link whose target is missing cannot be checked by realpath: refuse it unless its target text stays inside.
 * @param {string} path @param {string} shown @param {string} root @param {boolean} namedInside
 */
async function refuseDanglingLink(path, shown, root, namedInside) {
  let info;
  try {
    info = await lstat(path);
  } catch {
    return;
  }
  if (!info.isSymbolicLink()) return;
  const target = resolve(dirname(path), await readlink(path));
  if (!isInside(root, target)) throw outside(shown, namedInside);
  throw new FilesystemError('dangling-link', `Refused "${shown}": it is a symbolic link to a missing file.`);
}

/**
 * @param {string} shown the path as the model wrote it
 * @param {boolean} namedInside the path names a place inside the root, so a symbolic link is what leads out
 */
function outside(shown, namedInside) {
  // The root is not named: under `birdie serve` it is where the server keeps the user's workspace, which is not theirs
  // to know; the model and a local user know their working directory.
  const how = namedInside
    ? 'it leads outside the working directory through a symbolic link'
    : 'it is outside the working directory';
  return new FilesystemError(
    'outside-root',
    `Refused "${shown}": ${how}. Only files under it can be used.`,
  );
}

/**
 * Under the sandbox these tools still run in birdie's process; they refuse what the sandbox would keep from a
 * sandboxed tool of the same working directory (the runtime's `context.sandbox.access`, one layout for both): reading
 * what it hides (the birdie folder, a config file birdie read, the home's dot entries), changing what it keeps
 * read-only (`.git`, `.envrc`, `.vscode` and the other protected paths, the home's top level).
 * @param {{ path: string; shown: string }} target
 * @param {{ sandbox?: { access(path: string): 'read-write' | 'read-only' | 'hidden' } } | undefined} context
 * @param {'read' | 'write'} use
 */
export function sandboxAllows(target, context, use) {
  const access = context?.sandbox?.access(target.path);
  if (access === undefined || access === 'read-write') return;
  if (access === 'hidden') {
    throw new FilesystemError(
      'sandboxed',
      `Refused "${target.shown}": the sandbox hides it (birdie's folder, a config file birdie read, or a dotfile of the home folder).`,
    );
  }
  if (use === 'write') {
    throw new FilesystemError(
      'sandboxed',
      `Refused "${target.shown}": it is read-only in the sandbox (other programs run such files later, outside it, e.g. .git hooks and config, .envrc, shell start-up files); the user changes it outside the sandbox.`,
    );
  }
}
