import { open, realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { Skill } from '@birdie/skill-parser';

/**
 * One reference file of a skill (`read_reference`, `birdie mcp`'s `skill://NAME/FILE` resources): the file must be in
 * the skill's resource list and resolve (symlinks followed) inside the skill folder; the text is capped at
 * `maxChars`, `more` saying how many bytes were left out. Throws with a message for the reader otherwise.
 */
export async function readReferenceFile(
  skill: Pick<Skill, 'name' | 'dir' | 'resources'>,
  name: string,
  maxChars: number,
): Promise<{ text: string; more: number }> {
  const file = name.replace(/\\/g, '/').replace(/^\.\//, '');
  if (file.includes('\0')) throw new Error('Refused: the file name contains a NUL byte.');
  if (!skill.resources.includes(file)) {
    throw new Error(
      `"${file}" is not a reference file of ${skill.name}. Files: ${skill.resources.join(', ') || '(none)'}`,
    );
  }
  const root = await realpath(skill.dir);
  const target = await realpath(resolve(skill.dir, file));
  if (!inside(root, target)) throw new Error(`Refused: "${file}" resolves outside the skill folder.`);
  return readCapped(target, maxChars);
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
