import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreError } from './errors.js';

/**
 * Creates `dir` and its missing parents, each with `mode` (default 0700), one level at a time. Node's own `mkdirSync(…, {recursive})`
 * retries forever when mkdir answers ENOENT under a parent that exists (it does on /proc), so the walk is ours:
 * at most one mkdir per path component, and every failure is a `StoreError('home-unusable')` naming `dir`.
 */
export function ensureFolder(dir: string, mode = 0o700): void {
  const missing: string[] = [];
  for (let current = dir; ; current = dirname(current)) {
    const info = statOrFail(dir, current);
    if (info) {
      if (!info.isDirectory()) throw unusable(dir, `${current} is not a folder`);
      break;
    }
    missing.push(current);
    if (dirname(current) === current) break;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder, { mode });
    } catch (cause) {
      // Another process may have made it meanwhile; anything else means folders cannot be made here.
      if (errno(cause) === 'EEXIST' && statOrFail(dir, folder)?.isDirectory()) continue;
      throw unusable(dir, `mkdir ${folder} failed (${errno(cause) ?? String(cause)})`, cause);
    }
  }
}

function statOrFail(dir: string, path: string) {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (cause) {
    // A file higher up: keep walking, the walk stops at that file and names it.
    if (errno(cause) === 'ENOTDIR') return undefined;
    throw unusable(dir, `cannot read ${path} (${errno(cause) ?? String(cause)})`, cause);
  }
}

function unusable(dir: string, reason: string, cause?: unknown): StoreError {
  return new StoreError('home-unusable', `cannot create the folder ${dir}: ${reason}`, { cause });
}

function errno(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
