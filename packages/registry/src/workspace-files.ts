import { createHash } from 'node:crypto';
import { constants, statSync } from 'node:fs';
import { open, readdir, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Skill } from '@birdie/skill-parser';
import type { MemoryFileInfo, RunFile } from './types.js';

/** The project memory file's name: read into the prompt once its folder is trusted. */
export const MEMORY_FILE_NAME = 'AGENTS.md';
/** The memory files' names when the application names none (its `memory_files` setting). */
export const DEFAULT_MEMORY_FILE_NAMES: readonly string[] = [MEMORY_FILE_NAME];

/** Why `name` cannot be a memory file's name (a plain file name: no folder, no `..`), or undefined. */
export function memoryFileNameProblem(name: string): string | undefined {
  if (name.trim() === '' || name !== name.trim()) return 'an empty name, or blanks around it';
  if (name === '.' || name === '..' || /[/\\\u0000-\u001f\u007f]/.test(name))
    return 'not a plain file name (no folders, no `..`, no control characters)';
  return undefined;
}
/** A project's custom slash commands (`NAME.md`), offered only once its folder is trusted for what they say. */
export const PROJECT_COMMANDS_DIR = join('.birdie', 'commands');
/** A project's own settings and approval rules, read only once its folder is trusted. */
export const PROJECT_SETTINGS_FILE = join('.birdie', 'settings.json');

const HEAD_LINES = 3;
const HEAD_WIDTH = 100;
const HEAD_BYTES = 4096;

function exists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * The memory file paths of a folder (`AGENTS.md`, or each of `names` in their order), general to specific: from the
 * repository root (the nearest folder above `cwd` holding `.git`) down to `cwd`; outside a repository only `cwd`'s.
 * Existing or not. The one place this rule is written: the trust digest, the prompt and the runtime's cache of the
 * files all go by it.
 *
 * Synchronous: one `stat` of `.git` per folder from `cwd` up to the root, which costs less than sending each through
 * the thread pool. `hasGit` is how a `.git` is looked for (default: it can be stat'ed); a caller that must also
 * remember what it saw (the runtime's cache stamps each `.git` it checks) passes its own.
 */
export function memoryFilePathsSync(
  cwd: string,
  names: readonly string[] = DEFAULT_MEMORY_FILE_NAMES,
  hasGit: (gitPath: string) => boolean = exists,
): string[] {
  const chain: string[] = [];
  let dir = resolve(cwd);
  let root: number | undefined;
  for (;;) {
    chain.push(dir);
    if (hasGit(join(dir, '.git'))) {
      root = chain.length;
      break;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return chain
    .slice(0, root ?? 1)
    .reverse()
    .flatMap((folder) => names.map((name) => join(folder, name)));
}

/** `memoryFilePathsSync` for callers that await it. */
export async function memoryFilePaths(
  cwd: string,
  names: readonly string[] = DEFAULT_MEMORY_FILE_NAMES,
): Promise<string[]> {
  return memoryFilePathsSync(cwd, names);
}

/** The project memory files that exist (of `names`, default `AGENTS.md`), with their size and first lines. */
export async function memoryFiles(
  workspace: string,
  names: readonly string[] = DEFAULT_MEMORY_FILE_NAMES,
): Promise<MemoryFileInfo[]> {
  const found: MemoryFileInfo[] = [];
  for (const path of await memoryFilePaths(workspace, names)) {
    const head = await readHead(path);
    if (head) found.push({ path, ...head });
  }
  return found;
}

/**
 * Opening without blocking: a project is read before it is trusted, and a named pipe in place of one of its files
 * would otherwise make `open` wait for a writer for ever. Each reader checks on the open file that it is a regular one.
 */
const NO_WAIT = constants.O_RDONLY | constants.O_NONBLOCK;

/** A regular file's bytes; `undefined` when it is missing, unreadable or not a regular file (a pipe, a device). */
async function regularFileBytes(path: string): Promise<Buffer | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, NO_WAIT);
    if (!(await handle.stat()).isFile()) return undefined;
    return await handle.readFile();
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

async function readHead(path: string): Promise<{ size: number; head: string[] } | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, NO_WAIT);
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    const buffer = Buffer.alloc(Math.min(info.size, HEAD_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const head = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .slice(0, HEAD_LINES)
      .map((line) => (line.length > HEAD_WIDTH ? `${line.slice(0, HEAD_WIDTH - 1)}…` : line));
    return { size: info.size, head };
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** The project's settings file, if it has one, with the SHA-256 of its bytes. */
export async function settingsFile(workspace: string): Promise<{ path: string; sha256: string } | undefined> {
  const path = join(workspace, PROJECT_SETTINGS_FILE);
  const bytes = await regularFileBytes(path);
  return bytes ? { path, sha256: sha256(bytes) } : undefined;
}

/**
 * The project's custom slash commands (`.birdie/commands/*.md`), each with the SHA-256 of its bytes: a command's text
 * is sent as the user's own message when they type it, so the trust digest covers every byte of it.
 */
export async function commandFiles(workspace: string): Promise<Array<{ path: string; sha256: string }>> {
  const dir = join(workspace, PROJECT_COMMANDS_DIR);
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: Array<{ path: string; sha256: string }> = [];
  for (const name of names.filter((n) => n.endsWith('.md')).sort()) {
    const path = join(dir, name);
    const bytes = await regularFileBytes(path);
    if (bytes) found.push({ path, sha256: sha256(bytes) });
  }
  return found;
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The paths (relative to the skill folder) an entrypoint names as code to run there. */
function namedFiles(skill: Skill, entrypoint: string): string[] {
  const colon = entrypoint.indexOf(':');
  const scheme = entrypoint.slice(0, colon);
  const target = entrypoint.slice(colon + 1);
  if (scheme === 'node') {
    const hash = target.lastIndexOf('#');
    return [hash === -1 ? target : target.slice(0, hash)];
  }
  if (scheme === 'python') {
    const module = target
      .slice(0, target.lastIndexOf('.'))
      .replace(new RegExp(`^birdie\\.skills\\.${skill.name.replace(/\W/g, '\\$&')}\\.`), '');
    const path = module.split('.').join('/');
    return [`${path}.py`, join(path, '__init__.py')];
  }
  if (scheme === 'bash') {
    // Words of the template that name a file of the skill folder (`./run.sh`, `scripts/x.py`); placeholders are data.
    return target
      .split(/\s+/)
      .map((word) => word.replace(/^['"]|['";]+$/g, ''))
      .filter((word) => word !== '' && !word.includes('{') && !word.startsWith('-'));
  }
  return [];
}

/**
 * What a project skill runs: the real path of its folder, and each file its `node:`/`python:` entrypoints and `bash:`
 * templates name inside that folder, hashed. `outside`: the folder or a named file resolves (symlinks followed)
 * outside the workspace — code the user did not trust with the folder, which is refused.
 */
export async function skillRunFiles(
  skill: Skill,
  workspaceReal: string,
): Promise<{ folder: string; runs: RunFile[]; outside: string[] }> {
  const lexical = dirname(skill.file);
  const folder = await realpath(lexical).catch(() => lexical);
  const outside = isInside(workspaceReal, folder) ? [] : [folder];
  const runs = new Map<string, string>();
  for (const tool of skill.tools) {
    for (const name of namedFiles(skill, tool.entrypoint)) {
      const path = resolve(lexical, name);
      if (isAbsolute(name) || !isInside(lexical, path) || path === lexical) continue;
      const real = await realpath(path).catch(() => undefined);
      if (real === undefined) continue;
      if (!isInside(workspaceReal, real)) {
        if (statSync(real, { throwIfNoEntry: false })?.isFile()) outside.push(real);
        continue;
      }
      const bytes = await regularFileBytes(real);
      if (bytes) runs.set(relative(lexical, path), sha256(bytes));
    }
  }
  return {
    folder,
    runs: [...runs]
      .map(([file, hash]) => ({ file, sha256: hash }))
      .sort((a, b) => (a.file < b.file ? -1 : 1)),
    outside,
  };
}
