import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedRegistry, SkillDirectory, TrustDecision } from '@birdie/registry';
import type { Values } from './argv.js';
import { type Io, UsageError } from './io.js';
import { bundledSkillsDir, resolveFrom, userHome, userSkillsDir } from './paths.js';
import { readTrust, realFolder, trustDecision, trustedForOneRun } from './trust.js';

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

/**
 * Every layer birdie loads, in increasing precedence: bundled, user, project, then `--skills-dir`. Project folders
 * load only when `trust` says so (see trust.ts); without a decision they do not load at all.
 */
export async function openRegistry(io: Io, values: Values, trust?: TrustDecision): Promise<LoadedRegistry> {
  const { loadRegistry } = await import('@birdie/registry');
  return loadRegistry({ dirs: skillDirectories(io, values), ...(trust ? { trust } : {}) });
}

/**
 * The registry with the user's stored trust answers applied (and `--trust-workspace`), for commands that do not open
 * a whole runtime (`skills list`, `skills check`, `tool`). The store is only read.
 */
export async function openTrustedRegistry(io: Io, values: Values): Promise<LoadedRegistry> {
  const { openUserStore } = await import('./runtime.js');
  const store = await openUserStore(io, values);
  try {
    return await openRegistry(
      io,
      values,
      trustDecision(await readTrust(store), trustedForOneRun(values, workingDir(io, values))),
    );
  } finally {
    await store.close();
  }
}

/**
 * The registry's standard layout, except that the user's birdie folder follows `$BIRDIE_HOME` (so a test or a
 * second profile never reads the real `~/.birdie/skills`).
 */
export function skillDirectories(io: Io, values: Values): SkillDirectory[] {
  const cwd = workingDir(io, values);
  const workspace = realFolder(cwd);
  return [
    { path: bundledSkillsDir(io.env), layer: 'bundled' },
    { path: userSkillsDir(io.env), layer: 'user' },
    { path: join(userHome(io.env), '.agents', 'skills'), layer: 'user' },
    { path: join(cwd, '.birdie', 'skills'), layer: 'project', workspace },
    { path: join(cwd, '.agents', 'skills'), layer: 'project', workspace },
    ...extraSkillDirs(io, values).map((path) => ({ path, layer: 'explicit' as const })),
  ];
}
