import { lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Where a path argument really leads, when a symbolic link on its way changes it. */
export interface LinkedPath {
  /** The real path relative to the workspace's real path, `/`-separated (meaningless when `outside`). */
  path: string;
  /** The real path leaves the workspace, or the link cannot be followed. */
  outside: boolean;
  /** The absolute real path, `/`-separated (absent when the link cannot be followed). */
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

/**
 * The real path `value` names under `root` when it differs from what the text says (a symbolic link on the way:
 * `docs/gh/x` with `docs/gh -> ../.github` is `.github/x`); undefined when the text says where it leads (no link on
 * its existing part, or not a path at all: `https://…` names nothing that exists). What does not exist yet is
 * joined to the real path of its deepest existing folder, where the tool will create it.
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
  let real: string;
  try {
    realRoot = realpathSync(root);
    real = join(realpathSync(existing), relative(existing, absolute));
  } catch {
    // a dangling or looping link: where it leads is unknown
    return { path: '', outside: true };
  }
  const written = relative(resolve(root), absolute);
  const path = relative(realRoot, real);
  if (path === written) return undefined;
  const outside = path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path);
  return { path: path.split(sep).join('/'), outside, real: real.split(sep).join('/') };
}
