import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SKILL_FILE_NAMES } from '@birdie/skill-parser';
import type { DiagnosticLike } from './diagnostics.js';

// What `skills check DIR` says about folders that look meant as skills and that no discovery loads: a skill file with
// another spelling (`Skill.md`), a `SKILL.md` that is a folder, a link whose target is gone. Discovery passes over
// them without a word, as it must for the folders of a skills folder that are not skills; a check should not.

const READ: readonly string[] = SKILL_FILE_NAMES;

const problem = (file: string, reason: string, ruleId: string, fatal: boolean): DiagnosticLike => ({
  file,
  line: 1,
  column: 1,
  reason,
  ruleId,
  fatal,
  source: 'birdie',
});

/** The problems of one folder meant as a skill (the folder checked, or one of a skills folder's): none when it loads. */
export async function skillFolderProblems(folder: string): Promise<DiagnosticLike[]> {
  const names = await readdir(folder).catch(() => undefined);
  if (!names) return [];
  const exact = READ.find((name) => names.includes(name));
  if (exact) {
    const info = await stat(join(folder, exact)).catch(() => undefined);
    return info?.isDirectory()
      ? [
          problem(
            join(folder, exact),
            `${exact} is a folder, not a file: this skill is not loaded`,
            'skill-file-not-file',
            true,
          ),
        ]
      : [];
  }
  const variant = names.find((name) => name.toLowerCase() === 'skill.md');
  if (!variant) return [];
  return [
    problem(
      join(folder, variant),
      `${variant} is not read: a skill's file is named SKILL.md (SKILL.MD and skill.md are read too), so this folder is not loaded`,
      'skill-file-name',
      false,
    ),
  ];
}

/** The problems of a skills folder's entries: each sub-folder as `skillFolderProblems`, and links to nothing. */
export async function skillsFolderProblems(dir: string): Promise<DiagnosticLike[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
  const found: DiagnosticLike[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) {
      const info = await stat(path).catch(() => undefined);
      if (!info) {
        found.push(
          problem(
            path,
            'a link to nothing (its target is gone): no skill is loaded from it',
            'broken-link',
            false,
          ),
        );
        continue;
      }
      if (!info.isDirectory()) continue;
    } else if (!entry.isDirectory()) continue;
    found.push(...(await skillFolderProblems(path)), ...(await nestedSkills(path, entry.name)));
  }
  return found;
}

/**
 * Skills one folder too deep: a sub-folder that is no skill itself (no skill file in any spelling) but whose own
 * sub-folders hold skill files, as `DIR/group/tools/SKILL.md`. A skill's own sub-folders are its business (a template
 * it ships), so only folders without a skill file are looked into, one level down.
 */
async function nestedSkills(folder: string, name: string): Promise<DiagnosticLike[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  if (names.some((entry) => entry.toLowerCase() === 'skill.md')) return [];
  const found: DiagnosticLike[] = [];
  for (const child of names.sort()) {
    if (child.startsWith('.') || child === 'node_modules') continue;
    for (const file of READ) {
      const info = await stat(join(folder, child, file)).catch(() => undefined);
      if (!info?.isFile()) continue;
      found.push(
        problem(
          join(folder, child, file),
          `this skill is one folder too deep: a skills folder loads the skills of its own sub-folders, so it is not loaded (give ${name} as the skills folder, or move ${child} up one level)`,
          'nested-skill',
          false,
        ),
      );
      break;
    }
  }
  return found;
}
