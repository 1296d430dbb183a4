import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { discoverSkills, type Skill } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { RULES, registryMessage } from './diagnostics.js';
import { reportSkippedFolders } from './skipped-folders.js';
import type { SkillDirectory } from './types.js';

export interface ScanResult {
  skills: Skill[];
  messages: VFileMessage[];
}

/**
 * Reads one skills folder. Never throws: a missing folder yields nothing, a folder that cannot be used yields a
 * warning, and the parser's own diagnostics are passed through untouched.
 */
export async function scanDirectory(directory: SkillDirectory): Promise<ScanResult> {
  const { path } = directory;
  try {
    const info = await stat(path);
    if (!info.isDirectory())
      return warn(directory, RULES.dirNotDirectory, `${path} is not a folder; it is skipped`);
    await access(path, constants.R_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { skills: [], messages: [] };
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
      `Cannot read skills folder ${path} (${why}); it is skipped`,
      error,
    );
  }
  try {
    const { skills, messages } = await discoverSkills(path);
    return { skills, messages: [...messages, ...(await reportSkippedFolders(path, skills, messages))] };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return warn(directory, RULES.scanFailed, `Scanning ${path} failed (${reason}); it is skipped`, error);
  }
}

function warn(
  directory: SkillDirectory,
  ruleId: (typeof RULES)[keyof typeof RULES],
  reason: string,
  cause?: unknown,
): ScanResult {
  const message = registryMessage(reason, {
    file: directory.path,
    ruleId,
    severity: 'warning',
    ...(cause instanceof Error ? { cause } : {}),
  });
  return { skills: [], messages: [message] };
}
