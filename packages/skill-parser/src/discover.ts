import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { VFileMessage } from 'vfile-message';
import { parseFailed, Reporter } from './diagnostics.js';
import { MAX_RESOURCE_DEPTH, MAX_RESOURCES } from './limits.js';
import type { ParseSkillResult } from './parse-skill.js';
import { failure, mapLimited, readAuthoredText } from './read-file.js';
import { cacheable, parseCacheKey, type SkillCache } from './skill-cache.js';
import type { Skill } from './types.js';

/** File names that make a folder a skill, in order of preference. */
export const SKILL_FILE_NAMES = ['SKILL.md', 'SKILL.MD', 'skill.md'] as const;
/** How many skill folders are read at once. */
const CONCURRENCY = 16;

export interface DiscoverResult {
  skills: Skill[];
  messages: VFileMessage[];
}

export const skipped = (name: string) => name.startsWith('.') || name === 'node_modules';

/** A symbolic link is listed when it leads to a regular file; a link to a folder (loops), a device or nothing is not. */
async function linksToFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

/**
 * Lists the other files of a skill folder: relative, `/`-separated, sorted; no dotfiles, no `node_modules`, no
 * symlinked folders (no loops), bounded in depth and count (with a warning when the bound is hit).
 */
async function listResources(
  dir: string,
  top: Dirent[],
  skillFileName: string,
  reporter: Reporter,
): Promise<string[]> {
  const files: string[] = [];
  let capped = false;
  const walk = async (entries: Dirent[], prefix: string, depth: number): Promise<void> => {
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (skipped(entry.name) || (depth === 0 && entry.name === skillFileName)) continue;
      const rel = prefix + entry.name;
      if (entry.isDirectory()) {
        if (depth + 1 >= MAX_RESOURCE_DEPTH) {
          capped = true;
          continue;
        }
        const children = await readdir(join(dir, rel), { withFileTypes: true }).catch(() => [] as Dirent[]);
        await walk(children, `${rel}/`, depth + 1);
      } else if (entry.isFile() || (entry.isSymbolicLink() && (await linksToFile(join(dir, rel))))) {
        if (files.length >= MAX_RESOURCES) {
          capped = true;
          return;
        }
        files.push(rel);
      }
    }
  };
  await walk(top, '', 0);
  if (capped) {
    reporter.report(
      'resources-capped',
      `Resource listing stops at ${MAX_RESOURCES} files and ${MAX_RESOURCE_DEPTH} folder levels; some files are not listed`,
    );
  }
  return files.sort();
}

/** How skills are read: `strict` makes the Agent Skills standard's rules errors (see `ParseSkillOptions`). */
export interface LoadOptions {
  strict?: boolean;
  /**
   * Parsed skills kept between runs: a skill whose file, folder listing and parser build are unchanged is taken from
   * it instead of parsed again, and a skill parsed without any message is offered to it (see `SkillCache`).
   */
  cache?: SkillCache;
}

async function loadFromFolder(
  dir: string,
  entries: Dirent[],
  fileName: string,
  options: LoadOptions,
): Promise<ParseSkillResult> {
  const file = join(dir, fileName);
  const reporter = new Reporter(file);
  try {
    const [text, resources] = await Promise.all([
      readAuthoredText(file, 'SKILL.md'),
      listResources(dir, entries, fileName, reporter),
    ]);
    if (typeof text !== 'string') return text;
    const key = options.cache && parseCacheKey('skill', file, text, [resources, options.strict === true]);
    const cached = key === undefined ? undefined : (options.cache!.get(key) as Skill | undefined);
    if (cached) return { skill: cached, messages: reporter.messages };
    // Loaded on the first miss: a start whose skills are all cached never loads the parser (YAML, micromark).
    const { parseSkill } = await import('./parse-skill.js');
    const result = parseSkill(text, { path: file, resources, ...(options.strict ? { strict: true } : {}) });
    if (key !== undefined && result.skill && result.messages.length === 0 && cacheable(result.skill))
      options.cache!.set(key, result.skill);
    return { ...result, messages: [...reporter.messages, ...result.messages] };
  } catch (error) {
    // Whatever goes wrong with one folder is that skill's error, never the whole discovery's.
    return parseFailed(file, error);
  }
}

/** Parses one SKILL.md from disk, listing the other files of its folder as `resources`. */
export async function loadSkillFile(file: string, options: LoadOptions = {}): Promise<ParseSkillResult> {
  const path = resolve(file);
  const dir = dirname(path);
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => error);
  if (entries instanceof Error)
    return failure(path, 'unreadable-file', `Cannot read ${dir}: ${entries.code ?? entries.message}`);
  return loadFromFolder(dir, entries, basename(path), options);
}

/**
 * Finds the skills in the immediate sub-folders of `dir` (a folder is a skill when it holds SKILL.md, SKILL.MD or
 * skill.md) and parses them, a bounded number at a time. One bad skill never stops the others. Skills come back in
 * folder-name order; only skills without fatal messages are returned.
 */
export async function discoverSkills(dir: string, options: LoadOptions = {}): Promise<DiscoverResult> {
  const root = resolve(dir);
  const entries = await readdir(root, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => error);
  if (entries instanceof Error) {
    const { messages } = failure(
      root,
      'unreadable-file',
      `Cannot read skills folder: ${entries.code ?? entries.message}`,
    );
    return { skills: [], messages };
  }
  const folders = entries
    .filter((e) => !skipped(e.name) && (e.isDirectory() || e.isSymbolicLink()))
    .map((e) => e.name)
    .sort();
  const results = await mapLimited(folders, CONCURRENCY, async (name) => {
    const folder = join(root, name);
    const children = await readdir(folder, { withFileTypes: true }).catch(() => undefined);
    const fileName =
      children && SKILL_FILE_NAMES.find((n) => children.some((c) => c.name === n && !c.isDirectory()));
    return children && fileName ? loadFromFolder(folder, children, fileName, options) : undefined;
  });
  const skills: Skill[] = [];
  const messages: VFileMessage[] = [];
  for (const result of results) {
    if (!result) continue;
    if (result.skill) skills.push(result.skill);
    messages.push(...result.messages);
  }
  return { skills, messages };
}
