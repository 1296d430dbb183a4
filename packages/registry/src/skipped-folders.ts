import { constants, type Dirent } from 'node:fs';
import { access, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Skill } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { RULES, registryMessage } from './diagnostics.js';

const CONCURRENCY = 32;

/**
 * The parser passes over sub-folders it cannot open (as it does folders without a SKILL.md). Of the sub-folders
 * that yielded neither a skill nor a message, this finds those that cannot be read, or are symbolic link loops,
 * so they are reported instead of silently missing. Only those few folders are checked.
 */
export async function reportSkippedFolders(
  root: string,
  skills: readonly Skill[],
  messages: readonly VFileMessage[],
): Promise<VFileMessage[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const accounted = new Set<string>();
  for (const skill of skills) accounted.add(basename(skill.dir));
  for (const message of messages) if (message.file) accounted.add(basename(dirname(message.file)));
  const candidates = entries
    .filter(
      (entry) =>
        (entry.isDirectory() || entry.isSymbolicLink()) &&
        !entry.name.startsWith('.') &&
        entry.name !== 'node_modules' &&
        !accounted.has(entry.name),
    )
    .map((entry) => join(root, entry.name))
    .sort();
  const found: VFileMessage[] = [];
  for (let start = 0; start < candidates.length; start += CONCURRENCY) {
    const batch = candidates.slice(start, start + CONCURRENCY);
    const problems = await Promise.all(batch.map((path) => problemOf(path)));
    problems.forEach((problem, index) => {
      if (!problem) return;
      const path = batch[index]!;
      found.push(
        registryMessage(`Cannot read skill folder ${path} (${problem}); it is skipped`, {
          file: path,
          ruleId: RULES.dirUnreadable,
          severity: 'warning',
        }),
      );
    });
  }
  return found;
}

async function problemOf(path: string): Promise<string | undefined> {
  try {
    // Follows links: a loop fails here, a link to a file is not a folder at all.
    if (!(await stat(path)).isDirectory()) return undefined;
    await access(path, constants.R_OK | constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return 'a symbolic link loop';
    if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
    // Dangling links vanish from view like missing folders: nothing to say.
    return undefined;
  }
}
