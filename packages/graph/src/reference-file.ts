import { open, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Skill } from '@birdie/skill-parser';

type ReferenceSkill = Pick<Skill, 'name' | 'dir' | 'resources'>;

/**
 * One reference file of a skill (`read_reference`, `birdie mcp`'s `skill://NAME/FILE` resources): the file must pass
 * `referenceFilePath`; the text is capped at `maxChars`, `more` saying how many bytes were left out. Throws with a
 * message for the reader otherwise.
 */
export async function readReferenceFile(
  skill: ReferenceSkill,
  name: string,
  maxChars: number,
): Promise<{ text: string; more: number }> {
  return readCapped(await referenceFilePath(skill, name), maxChars);
}

/**
 * Where a reference file of the skill is read from: it must be in the skill's resource list, resolve (symlinks
 * followed) inside the skill folder and be a file there now. Throws with a message for the reader otherwise. The one
 * rule for what a read serves, so that a listing of the files (`readableReferenceFiles`) offers nothing a read refuses.
 */
export async function referenceFilePath(skill: ReferenceSkill, name: string): Promise<string> {
  const file = name.replace(/\\/g, '/').replace(/^\.\//, '');
  if (file.includes('\0')) throw new Error('Refused: the file name contains a NUL byte.');
  if (!skill.resources.includes(file)) {
    // The refusal names only files a read serves: a listed symlink leading out of the folder keeps its name hidden.
    const files = await readableReferenceFiles(skill);
    throw new Error(
      `"${file}" is not a reference file of ${skill.name}. Files: ${files.join(', ') || '(none)'}`,
    );
  }
  return located(await realpath(skill.dir), skill, file);
}

/**
 * The skill's reference files a read serves (`referenceFilePath` accepts them), in the resource list's order: a file
 * listed when the skill was loaded but since gone, now a folder, or a symlink leading out of the folder is left out.
 */
export async function readableReferenceFiles(skill: ReferenceSkill): Promise<string[]> {
  if (skill.resources.length === 0) return [];
  const root = await realpath(skill.dir).catch(() => undefined);
  if (root === undefined) return [];
  const served = await Promise.all(
    skill.resources.map((file) =>
      located(root, skill, file).then(
        () => true,
        () => false,
      ),
    ),
  );
  return skill.resources.filter((_, i) => served[i]);
}

/** The real path of a listed file, given the skill folder's real path (`root`); throws why it is not served. */
async function located(root: string, skill: ReferenceSkill, file: string): Promise<string> {
  const target = await realpath(resolve(skill.dir, file)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new Error(`"${file}" of ${skill.name} no longer exists.`);
    throw error;
  });
  if (!inside(root, target)) throw new Error(`Refused: "${file}" resolves outside the skill folder.`);
  if (!(await stat(target)).isFile()) throw new Error(`"${file}" of ${skill.name} is not a file.`);
  return target;
}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function readCapped(path: string, maxChars: number): Promise<{ text: string; more: number }> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    // UTF-8 uses at most 4 bytes per character: reading 4×cap bytes always covers cap characters.
    const length = Math.min(size, maxChars * 4);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, 0);
    const text = buffer.toString('utf8');
    if (text.length <= maxChars && size <= length) return { text, more: 0 };
    const kept = text.slice(0, maxChars);
    return { text: kept, more: Math.max(1, size - Buffer.byteLength(kept)) };
  } finally {
    await handle.close();
  }
}
