import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, parse } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { memoryFilePaths, memoryFilePathsSync } from './workspace-files.js';

describe('which memory files apply to a folder', () => {
  it('lists each name from the nearest folder holding .git down to cwd, and stops there', async (t) => {
    const root = await tempDir(t);
    // An outer repository: the inner one's root hides it.
    await mkdir(join(root, '.git'));
    const repo = join(root, 'repo');
    const cwd = join(repo, 'packages', 'app');
    await mkdir(join(repo, '.git'), { recursive: true });
    await mkdir(cwd, { recursive: true });
    await writeFile(join(repo, 'AGENTS.md'), 'root\n');
    await writeFile(join(repo, 'packages', 'AGENTS.md'), 'middle\n');
    await writeFile(join(cwd, 'AGENTS.md'), 'leaf\n');
    const names = ['AGENTS.md', 'CLAUDE.md'];
    const expected = [repo, join(repo, 'packages'), cwd].flatMap((folder) =>
      names.map((n) => join(folder, n)),
    );
    expect(memoryFilePathsSync(cwd, names)).toEqual(expected);
    expect(await memoryFilePaths(cwd, names)).toEqual(expected);
    expect(memoryFilePathsSync(cwd)).toEqual(
      [repo, join(repo, 'packages'), cwd].map((f) => join(f, 'AGENTS.md')),
    );
    // The root itself, and a `.git` file (a worktree's) as the root's mark.
    expect(memoryFilePathsSync(repo)).toEqual([join(repo, 'AGENTS.md')]);
    await writeFile(join(repo, 'packages', '.git'), 'gitdir: elsewhere\n');
    expect(memoryFilePathsSync(cwd)).toEqual([join(repo, 'packages', 'AGENTS.md'), join(cwd, 'AGENTS.md')]);
  });

  it("looks for .git once per folder up to the filesystem's root, and outside a repository lists cwd's only", () => {
    const cwd = join(parse(process.cwd()).root, 'a', 'b', 'c');
    const looked: string[] = [];
    const paths = memoryFilePathsSync(cwd, ['AGENTS.md'], (gitPath) => {
      looked.push(gitPath);
      return false;
    });
    expect(paths).toEqual([join(cwd, 'AGENTS.md')]);
    const folders = [cwd, dirname(cwd), dirname(dirname(cwd)), parse(cwd).root];
    expect(looked).toEqual(folders.map((folder) => join(folder, '.git')));
    looked.length = 0;
    const inRepo = memoryFilePathsSync(cwd, ['AGENTS.md'], (gitPath) => {
      looked.push(gitPath);
      return gitPath === join(dirname(cwd), '.git');
    });
    expect(inRepo).toEqual([join(dirname(cwd), 'AGENTS.md'), join(cwd, 'AGENTS.md')]);
    expect(looked).toEqual(folders.slice(0, 2).map((folder) => join(folder, '.git')));
  });
});
