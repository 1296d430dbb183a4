import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { SkillDirectory } from './types.js';

export interface DefaultDirectoryOptions {
  /** The application's own skills (the CLI's `skills/`). */
  bundledDir?: string;
  /** Default `os.homedir()`. */
  home?: string;
  /** Default `process.cwd()`. */
  cwd?: string;
  /** `--skills-dir` folders, highest precedence, in the order given. */
  extra?: string[];
}

/** The standard folders in increasing precedence: bundled, user, project, explicit. */
export function defaultSkillDirectories(options: DefaultDirectoryOptions = {}): SkillDirectory[] {
  const home = options.home ?? homedir();
  const cwd = options.cwd ?? process.cwd();
  const dirs: SkillDirectory[] = [];
  if (options.bundledDir) dirs.push({ path: resolve(options.bundledDir), layer: 'bundled' });
  dirs.push(
    { path: join(resolve(home), '.birdie', 'skills'), layer: 'user' },
    { path: join(resolve(home), '.agents', 'skills'), layer: 'user' },
    { path: join(resolve(cwd), '.birdie', 'skills'), layer: 'project' },
    { path: join(resolve(cwd), '.agents', 'skills'), layer: 'project' },
  );
  for (const path of options.extra ?? []) dirs.push({ path: resolve(cwd, path), layer: 'explicit' });
  return dirs;
}

export interface DefaultAgentDirectoryOptions {
  /** The application's own agents (the CLI's `agents/`). */
  bundledDir?: string;
  /** Default `os.homedir()`. */
  home?: string;
  /** Default `process.cwd()`. */
  cwd?: string;
  /** `--agents-dir` folders, highest precedence, in the order given. */
  extra?: string[];
}

/**
 * The standard agents folders in increasing precedence: bundled, user (`~/.birdie/agents`, `~/.agents/agents`),
 * project (`./.birdie/agents`, `./.agents/agents`, trusted with the workspace), explicit.
 */
export function defaultAgentDirectories(options: DefaultAgentDirectoryOptions = {}): SkillDirectory[] {
  const home = options.home ?? homedir();
  const cwd = options.cwd ?? process.cwd();
  const dirs: SkillDirectory[] = [];
  if (options.bundledDir) dirs.push({ path: resolve(options.bundledDir), layer: 'bundled' });
  dirs.push(
    { path: join(resolve(home), '.birdie', 'agents'), layer: 'user' },
    { path: join(resolve(home), '.agents', 'agents'), layer: 'user' },
    { path: join(resolve(cwd), '.birdie', 'agents'), layer: 'project' },
    { path: join(resolve(cwd), '.agents', 'agents'), layer: 'project' },
  );
  for (const path of options.extra ?? []) dirs.push({ path: resolve(cwd, path), layer: 'explicit' });
  return dirs;
}

/**
 * Absolute paths, and each folder once: a project folder that is also listed in another layer (the project is the
 * home folder) is that layer's; otherwise, when the same path is listed twice (a
 * `--skills-dir` repeats a default) only its last, highest-precedence occurrence stays, so a skill never
 * "overrides" itself.
 */
export function normalizeDirectories(dirs: Array<SkillDirectory | string>): SkillDirectory[] {
  const normalized = dirs.map((dir) =>
    typeof dir === 'string'
      ? { path: resolve(dir), layer: 'explicit' as const }
      : {
          path: resolve(dir.path),
          layer: dir.layer,
          ...(dir.workspace !== undefined ? { workspace: dir.workspace } : {}),
          ...(dir.named ? { named: true } : {}),
        },
  );
  // Run from the home folder, the project's `./.birdie/skills` is the user's `~/.birdie/skills`: the folder is the
  // user's own, so its project copy goes (kept, it would be skipped as untrusted and take the user's layer with it).
  const notProject = new Set(normalized.filter((dir) => dir.layer !== 'project').map((dir) => dir.path));
  const kept = normalized.filter((dir) => dir.layer !== 'project' || !notProject.has(dir.path));
  const lastIndex = new Map<string, number>();
  for (const [index, dir] of kept.entries()) lastIndex.set(dir.path, index);
  return kept.filter((dir, index) => lastIndex.get(dir.path) === index);
}
