import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  type AgentDefinition,
  discoverAgents,
  discoverSkills,
  SKILL_FILE_NAMES,
  type Skill,
  type SkillCache,
} from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { RULES, registryMessage } from './diagnostics.js';
import { reportSkippedFolders } from './skipped-folders.js';
import type { SkillDirectory } from './types.js';

export interface ScanResult {
  skills: Skill[];
  messages: VFileMessage[];
}

export interface AgentScanResult {
  agents: AgentDefinition[];
  messages: VFileMessage[];
}

/**
 * Reads one skills folder. Never throws: a missing folder yields nothing (a warning when the user named it), a folder
 * that cannot be used or that is one skill's own folder yields a warning, and the parser's own diagnostics are passed
 * through untouched.
 */
export async function scanDirectory(directory: SkillDirectory, cache?: SkillCache): Promise<ScanResult> {
  const problem = await folderProblem(directory, 'skills');
  if (problem !== undefined) return { skills: [], messages: problem };
  try {
    // Not for a project folder: what someone else wrote is read afresh, never kept in the user's own files.
    const cached = cache && directory.layer !== 'project' ? { cache } : {};
    const { skills, messages } = await discoverSkills(directory.path, cached);
    // Read all the same: a folder of skills that also holds a stray SKILL.md keeps loading the skills it holds.
    const mistaken = skills.length === 0 ? ((await oneSkillFolder(directory)) ?? []) : [];
    return {
      skills,
      messages: [...messages, ...(await reportSkippedFolders(directory.path, skills, messages)), ...mistaken],
    };
  } catch (error) {
    return { skills: [], messages: scanFailed(directory, error) };
  }
}

/** Reads one agents folder (its `*.md` files), with the same rules (and cache) as `scanDirectory`. */
export async function scanAgentDirectory(
  directory: SkillDirectory,
  cache?: SkillCache,
): Promise<AgentScanResult> {
  const problem = await folderProblem(directory, 'agents');
  if (problem !== undefined) return { agents: [], messages: problem };
  try {
    return await discoverAgents(directory.path, cache && directory.layer !== 'project' ? { cache } : {});
  } catch (error) {
    return { agents: [], messages: scanFailed(directory, error) };
  }
}

/**
 * `undefined` when the folder can be read; `[]` when it does not exist and the user did not name it (a default layer:
 * nothing to say); else one warning.
 */
async function folderProblem(
  directory: SkillDirectory,
  what: 'skills' | 'agents',
): Promise<VFileMessage[] | undefined> {
  const { path } = directory;
  try {
    const info = await stat(path);
    if (!info.isDirectory())
      return warn(directory, RULES.dirNotDirectory, `${path} is not a folder; it is skipped`);
    await access(path, constants.R_OK | constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return directory.named
        ? warn(directory, RULES.dirNotFound, `${path} does not exist; no ${what} are loaded from it`)
        : [];
    }
    if (code === 'ENOTDIR') {
      return warn(
        directory,
        RULES.dirNotDirectory,
        `${path} is not a folder (a parent is a file); it is skipped`,
      );
    }
    const why =
      code === 'ELOOP'
        ? 'a symbolic link loop'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : String(code ?? error);
    return warn(
      directory,
      RULES.dirUnreadable,
      `Cannot read ${what} folder ${path} (${why}); it is skipped`,
      error,
    );
  }
}

/**
 * A skills folder holds skill folders; one that loaded no skill and has a SKILL.md of its own is a skill's folder given
 * by mistake (what `birdie skills check` accepts): its sub-folders are the skill's files, not skills. The warning
 * names the parent folder that would load it.
 */
async function oneSkillFolder(directory: SkillDirectory): Promise<VFileMessage[] | undefined> {
  for (const name of SKILL_FILE_NAMES) {
    const file = join(directory.path, name);
    if (!(await stat(file).catch(() => undefined))?.isFile()) continue;
    const message = registryMessage(
      `${directory.path} is one skill's folder (it holds ${name}), not a folder of skills: its skill is not loaded; name its parent folder ${dirname(directory.path)} instead`,
      { file, ruleId: RULES.dirHoldsSkill, severity: 'warning' },
    );
    return [message];
  }
  return undefined;
}

function scanFailed(directory: SkillDirectory, error: unknown): VFileMessage[] {
  const reason = error instanceof Error ? error.message : String(error);
  return warn(
    directory,
    RULES.scanFailed,
    `Scanning ${directory.path} failed (${reason}); it is skipped`,
    error,
  );
}

function warn(
  directory: SkillDirectory,
  ruleId: (typeof RULES)[keyof typeof RULES],
  reason: string,
  cause?: unknown,
): VFileMessage[] {
  const message = registryMessage(reason, {
    file: directory.path,
    ruleId,
    severity: 'warning',
    ...(cause instanceof Error ? { cause } : {}),
  });
  return [message];
}
