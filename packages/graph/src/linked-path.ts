import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Where a path argument really leads, when a symbolic link on its way changes it. */
export interface LinkedPath {
  /** The real path relative to the workspace's real path, `/`-separated (meaningless when `outside`). */
  path: string;
  /** The real path leaves the workspace, or the link cannot be followed or dangles. */
  outside: boolean;
  /** The absolute real path, `/`-separated (for a dangling link, the one its target names; absent for a loop). */
  real?: string;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function resolves(path: string): boolean {
  try {
    realpathSync(path);
    return true;
  } catch {
    return false;
  }
}

/** As many links as the kernel follows in one path (Linux's limit) before it says the path loops. */
const MAX_LINKS = 40;

/**
 * The real path of an existing path, links followed; for a dangling link, the path its target names (where writing
 * through it creates the file), found by following the links by hand. Undefined for a loop.
 */
function whereItLeads(path: string, links = 0): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    if (links >= MAX_LINKS) return undefined;
  }
  let next: string;
  try {
    next = resolve(realpathSync(dirname(path)), readlinkSync(path));
  } catch {
    return undefined;
  }
  let existing = next;
  while (!exists(existing)) existing = dirname(existing);
  const base = whereItLeads(existing, links + 1);
  return base === undefined ? undefined : join(base, relative(existing, next));
}

/**
 * The real path `value` names under `root` when it differs from what the text says (a symbolic link on the way:
 * `docs/gh/x` with `docs/gh -> ../.github` is `.github/x`); undefined when the text says where it leads (no link on
 * its existing part, or not a path at all: `https://…` names nothing that exists). What does not exist yet is
 * joined to the real path of its deepest existing folder, where the tool will create it; a dangling link leads where
 * its target names (writing through it creates the file there).
 */
export function linkedPath(root: string, value: string): LinkedPath | undefined {
  if (value === '' || value.includes('\0')) return undefined;
  const absolute = resolve(root, value);
  let existing = absolute;
  while (!exists(existing)) {
    const parent = dirname(existing);
    if (parent === existing) return undefined;
    existing = parent;
  }
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return { path: '', outside: true };
  }
  const leads = whereItLeads(existing);
  // a looping link: where it leads is unknown
  if (leads === undefined) return { path: '', outside: true };
  const real = join(leads, relative(existing, absolute));
  // A dangling link: its target may be made (or changed) before the write, so no allow rule stretches over it, but a
  // deny or ask rule sees the path its target names now.
  if (!resolves(existing)) return { path: '', outside: true, real: real.split(sep).join('/') };
  const written = relative(resolve(root), absolute);
  const path = relative(realRoot, real);
  if (path === written) return undefined;
  const outside = path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path);
  return { path: path.split(sep).join('/'), outside, real: real.split(sep).join('/') };
}
