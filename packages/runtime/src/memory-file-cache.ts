import { type BigIntStats, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FindMemoryFilesOptions, MemoryFile } from '@birdie/graph';
import { memoryFilePathsSync } from '@birdie/registry';
import { type RuntimeIo, warn } from './io.js';

/** A file's identity and content stamp; `none` when it cannot be stat'ed (missing, unreadable). */
type Probe = { path: string; stamp: string };

interface Entry {
  probes: Probe[];
  files: MemoryFile[];
}

/** Entries kept per runtime: the folders of the sessions a server ran lately. */
const MAX_ENTRIES = 256;
/**
 * A file written this recently may be written again within its timestamp's granularity without its stamp moving
 * (the "racy" case of git's index): what was read of it is not kept. (A write after that moves its mtime; setting the
 * mtime back by hand moves its ctime.)
 */
const SETTLED_MS = 2_000;

function stampOf(path: string, content: boolean): { stamp: string; settled: boolean } {
  let info: BigIntStats | undefined;
  try {
    // BigInt stats: Node's own `realpathSync` (module resolution) reads the plain stat buffer a synchronous `stat`
    // fills, and stops resolving symbolic links when it last held a pipe (a named pipe as AGENTS.md did that).
    info = statSync(path, { throwIfNoEntry: false, bigint: true });
  } catch {
    info = undefined;
  }
  if (!info) return { stamp: 'none', settled: true };
  // A `.git` only counts by being there; a memory file by its content (inode, size, times).
  if (!content) return { stamp: 'exists', settled: true };
  return {
    stamp: `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`,
    settled: Date.now() - Number(info.mtimeMs) >= SETTLED_MS,
  };
}

/**
 * What `findMemoryFiles` reads depends on: every candidate file (the user's own, then each project folder's, for
 * each name), and the `.git` looked for in `cwd` and each parent up to the first one found (the repository root).
 * Which folders those are is @birdie/registry's rule (`memoryFilePathsSync`); each `.git` it checks is stamped by
 * the same `stat` that answers it.
 */
function probesOf(options: FindMemoryFilesOptions): { probes: Probe[]; settled: boolean } {
  const probes: Probe[] = [];
  let settled = true;
  const add = (path: string, content: boolean) => {
    const { stamp, settled: ok } = stampOf(path, content);
    probes.push({ path, stamp });
    settled &&= ok;
    return stamp !== 'none';
  };
  for (const path of [...(options.userFile ? [options.userFile] : []), ...(options.userFiles ?? [])])
    add(resolve(path), true);
  if (options.project !== false)
    for (const path of memoryFilePathsSync(options.cwd, options.names, (git) => add(git, false)))
      add(path, true);
  return { probes, settled };
}

const caches = new WeakMap<object, Map<string, Entry>>();

/**
 * `findMemoryFiles` for a runtime that runs many turns (`birdie serve`, the REPL): the files read for a folder are
 * kept, and a later turn in that folder uses them while every file they came from (and every `.git` that decided
 * the repository root) still has the same stamp: a few `stat`s instead of opening and reading each candidate
 * through the thread pool on every turn. An edited, added or removed file is read again on the next turn.
 */
export async function cachedMemoryFiles(
  owner: object,
  options: FindMemoryFilesOptions,
): Promise<MemoryFile[]> {
  let cache = caches.get(owner);
  if (!cache) {
    cache = new Map();
    caches.set(owner, cache);
  }
  const key = JSON.stringify([
    resolve(options.cwd),
    options.project !== false,
    options.userFile ?? null,
    options.userFiles ?? [],
    options.names ?? null,
    options.maxFileBytes ?? null,
  ]);
  // Stamped before reading: a file changed while it is read has another stamp by the next turn.
  const { probes, settled } = probesOf(options);
  const kept = cache.get(key);
  if (kept && sameProbes(kept.probes, probes)) {
    // Most recently used last: the oldest entry is the first one dropped.
    cache.delete(key);
    cache.set(key, kept);
    return [...kept.files];
  }
  const { findMemoryFiles } = await import('@birdie/graph');
  const files = await findMemoryFiles(options);
  if (settled) {
    cache.delete(key);
    cache.set(key, { probes, files });
    if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
  } else cache.delete(key);
  return files;
}

function sameProbes(a: Probe[], b: Probe[]): boolean {
  return a.length === b.length && a.every((p, i) => p.path === b[i]?.path && p.stamp === b[i]?.stamp);
}

const warned = new WeakMap<object, Set<string>>();

/**
 * Says once per runtime (per file and reason) that a memory file is there but is not read, as a warning line: the
 * turn goes on without it, and the user learns why their instructions did not apply.
 */
export function warnUnreadableMemoryFile(
  rt: { io: Pick<RuntimeIo, 'stderr'> },
  path: string,
  why: string,
): void {
  let seen = warned.get(rt);
  if (!seen) {
    seen = new Set();
    warned.set(rt, seen);
  }
  const key = `${path}\0${why}`;
  if (seen.has(key)) return;
  seen.add(key);
  warn(rt.io, `birdie: ${oneLine(`memory file ${path} is not read: ${why}`)}`);
}

/** Controls (newline too: one warning, one line) and invisible format characters written `\uXXXX`. */
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const oneLine = (text: string) =>
  text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
