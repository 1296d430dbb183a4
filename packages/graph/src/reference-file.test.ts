import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readableReferenceFiles, readReferenceFile } from './reference-file.js';

// What a listing of a skill's reference files offers is exactly what a read of them serves (`birdie mcp` lists them
// as `skill://NAME/FILE` resources): one rule, `referenceFilePath`.

let root: string;
let skill: { name: string; dir: string; resources: string[] };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'birdie-reference-'));
  const dir = join(root, 'notes');
  await mkdir(join(dir, 'ref', 'folder'), { recursive: true });
  await writeFile(join(dir, 'ref', 'ok.md'), 'ok\n');
  await writeFile(join(root, 'outside.md'), 'secret\n');
  await symlink(join(root, 'outside.md'), join(dir, 'ref', 'out.md'));
  await symlink('ok.md', join(dir, 'ref', 'alias.md'));
  // As loaded earlier: `folder` and `gone.md` were files then.
  skill = {
    name: 'notes',
    dir,
    resources: ['ref/alias.md', 'ref/folder', 'ref/gone.md', 'ref/ok.md', 'ref/out.md'],
  };
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('readableReferenceFiles', () => {
  it('offers the files inside the folder (a symlink within it too), not one leading out, a folder or a gone file', async () => {
    expect(await readableReferenceFiles(skill)).toEqual(['ref/alias.md', 'ref/ok.md']);
  });

  it('offers only what readReferenceFile serves, and each refusal says why', async () => {
    for (const file of await readableReferenceFiles(skill))
      expect((await readReferenceFile(skill, file, 100)).text).toBe('ok\n');
    await expect(readReferenceFile(skill, 'ref/out.md', 100)).rejects.toThrow(
      'Refused: "ref/out.md" resolves outside the skill folder.',
    );
    await expect(readReferenceFile(skill, 'ref/folder', 100)).rejects.toThrow(
      '"ref/folder" of notes is not a file.',
    );
    await expect(readReferenceFile(skill, 'ref/gone.md', 100)).rejects.toThrow(
      '"ref/gone.md" of notes no longer exists.',
    );
  });

  it('offers nothing of a skill whose folder is gone', async () => {
    expect(await readableReferenceFiles({ ...skill, dir: join(root, 'missing') })).toEqual([]);
  });
});
