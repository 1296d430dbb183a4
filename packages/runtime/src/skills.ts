import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedRegistry, SkillDirectory, TrustDecision } from '@birdie/registry';
import { explicitConfigPath } from './config.js';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { resolveFrom, userAgentsDir, userHome, userSkillsDir } from './paths.js';
import type { Settings } from './settings.js';
import { readSettings } from './settings-files.js';
import { SkillCacheFile, skillCachePath } from './skill-cache.js';
import { readTrust, realFolder, trustDecision, trustedForOneRun } from './trust.js';

export function workingDir(io: RuntimeIo, values: Flags): string {
  if (typeof values.cwd !== 'string') return io.cwd;
  const dir = resolveFrom(io.cwd, values.cwd);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new UsageError(`--cwd ${dir} is not a folder`);
  return dir;
}

export function extraSkillDirs(io: RuntimeIo, values: Flags): string[] {
  return pathList(io, values['skills-dir']);
}

export function extraAgentDirs(io: RuntimeIo, values: Flags): string[] {
  return pathList(io, values['agents-dir']);
}

function pathList(io: RuntimeIo, raw: Flags[string]): string[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  return list.map((p) => resolveFrom(io.cwd, p));
}

/**
 * Tools the graph provides itself, which an agent file may name in `tools` or `approve` without a skill declaring
 * them, and which no skill tool may take the name of (the registry refuses it: `tool-name-clash`). Kept here so
 * loading the registry never imports the graph.
 */
export const BUILTIN_TOOLS: readonly string[] = [
  'load_skill',
  'read_reference',
  'task',
  'handoff',
  'switch_model',
  'find_tools',
  'mcp_read_resource',
  'remember',
  'recall',
  'forget',
];

/**
 * Every layer birdie loads, skills and agents, in increasing precedence: bundled, user, project, then `--skills-dir` /
 * `--agents-dir`. Project folders load only when `trust` says so (see trust.ts); without a decision they do not load.
 */
export async function openRegistry(
  io: RuntimeIo,
  values: Flags,
  trust?: TrustDecision,
  settings?: Pick<Settings, 'memory_files'>,
): Promise<LoadedRegistry> {
  const { loadRegistry } = await import('@birdie/registry');
  // The trust digest covers which memory files exist, by the `memory_files` names: every command reads the same.
  const { memory_files } = settings ?? (await readSettings(io, explicitConfigPath(io, values)));
  // A start parses only the skills that changed since the last one (the bundled ones never do).
  const skillCache = new SkillCacheFile(skillCachePath(io.env));
  const registry = await loadRegistry({
    dirs: skillDirectories(io, values),
    agentDirs: agentDirectories(io, values),
    builtinTools: BUILTIN_TOOLS,
    memoryFiles: memory_files,
    skillCache,
    ...(trust ? { trust } : {}),
  });
  await skillCache.save();
  return registry;
}

/**
 * The registry with the user's stored trust answers applied (and `--trust-workspace`), for commands that do not open
 * a whole runtime (`skills list`, `skills check`, `tool`). The store is only read.
 */
export async function openTrustedRegistry(io: RuntimeIo, values: Flags): Promise<LoadedRegistry> {
  const { openUserStore } = await import('./user-store.js');
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
export function skillDirectories(io: RuntimeIo, values: Flags): SkillDirectory[] {
  const cwd = workingDir(io, values);
  const workspace = realFolder(cwd);
  return [
    ...(io.bundled?.skills ? [{ path: io.bundled.skills, layer: 'bundled' as const }] : []),
    { path: userSkillsDir(io.env), layer: 'user' },
    { path: join(userHome(io.env), '.agents', 'skills'), layer: 'user' },
    { path: join(cwd, '.birdie', 'skills'), layer: 'project', workspace },
    { path: join(cwd, '.agents', 'skills'), layer: 'project', workspace },
    // Named on the command line: one that does not exist is warned about (`dir-not-found`), not passed over.
    ...extraSkillDirs(io, values).map((path) => ({ path, layer: 'explicit' as const, named: true })),
  ];
}

/** The agents folders, laid out like the skills folders (`$BIRDIE_HOME/agents` for the user's own). */
export function agentDirectories(io: RuntimeIo, values: Flags): SkillDirectory[] {
  const cwd = workingDir(io, values);
  const workspace = realFolder(cwd);
  return [
    ...(io.bundled?.agents ? [{ path: io.bundled.agents, layer: 'bundled' as const }] : []),
    { path: userAgentsDir(io.env), layer: 'user' },
    { path: join(userHome(io.env), '.agents', 'agents'), layer: 'user' },
    { path: join(cwd, '.birdie', 'agents'), layer: 'project', workspace },
    { path: join(cwd, '.agents', 'agents'), layer: 'project', workspace },
    ...extraAgentDirs(io, values).map((path) => ({ path, layer: 'explicit' as const, named: true })),
  ];
}
