import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedRegistry, SkillDirectory } from '@birdie/registry';
import type { Values } from './argv.js';
import { type Io, UsageError } from './io.js';
import { bundledSkillsDir, resolveFrom, userHome, userSkillsDir } from './paths.js';

export function workingDir(io: Io, values: Values): string {
  if (typeof values.cwd !== 'string') return io.cwd;
  const dir = resolveFrom(io.cwd, values.cwd);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--cwd ${dir} is not a folder`);
  return dir;
}

export function extraSkillDirs(io: Io, values: Values): string[] {
  const raw = values['skills-dir'];
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  return list.map((p) => resolveFrom(io.cwd, p));
}

/** Every layer birdie loads, in increasing precedence: bundled, user, project, then `--skills-dir`. */
export async function openRegistry(io: Io, values: Values): Promise<LoadedRegistry> {
  const { loadRegistry } = await import('@birdie/registry');
  return loadRegistry({ dirs: skillDirectories(io, values) });
}

/**
 * The registry's standard layout, except that the user's birdie folder follows `$BIRDIE_HOME` (so a test or a
 * second profile never reads the real `~/.birdie/skills`).
 */
export function skillDirectories(io: Io, values: Values): SkillDirectory[] {
  const cwd = workingDir(io, values);
  return [
    { path: bundledSkillsDir(io.env), layer: 'bundled' },
    { path: userSkillsDir(io.env), layer: 'user' },
    { path: join(userHome(io.env), '.agents', 'skills'), layer: 'user' },
    { path: join(cwd, '.birdie', 'skills'), layer: 'project' },
    { path: join(cwd, '.agents', 'skills'), layer: 'project' },
    ...extraSkillDirs(io, values).map((path) => ({ path, layer: 'explicit' as const })),
  ];
}
