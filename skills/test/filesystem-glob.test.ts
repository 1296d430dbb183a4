import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Entrypoint } from '@birdie/entrypoints';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entrypointRefusal, toolEntrypoint } from './helpers.js';

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;

let work: TempDir;
let root: string;
let entrypoint: Entrypoint;

async function glob(args: Record<string, unknown>): Promise<string> {
  entrypoint ??= await toolEntrypoint('filesystem', 'glob');
  return (await entrypoint.run(args, { cwd: root, timeoutMs: 20_000 })).output;
}

const refusal = (args: Record<string, unknown>) =>
  entrypointRefusal(() => glob(args), `glob ${JSON.stringify(args)}`);

async function files(paths: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(paths)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

beforeEach(async () => {
  work = await makeTempDir('birdie-fs-glob-');
  root = join(work.path, 'root');
  await mkdir(root);
  await mkdir(join(work.path, 'outside'));
  await writeFile(join(work.path, 'outside', 'secret.ts'), '');
  await files({
    'src/index.ts': '',
    'src/lib/util.ts': '',
    'src/lib/util.test.ts': '',
    'src/readme.md': '',
    '.env.ts': '',
    'README.md': '',
  });
});

afterEach(async () => {
  await work.cleanup();
});

describe('filesystem: glob', () => {
  it('lists the files a pattern matches, sorted, relative to the working directory', async () => {
    expect(await glob({ pattern: '**/*.ts' })).toBe(
      [
        '4 files match "**/*.ts" in .:',
        '.env.ts',
        'src/index.ts',
        'src/lib/util.test.ts',
        'src/lib/util.ts',
      ].join('\n'),
    );
    expect(await glob({ pattern: '*.{md,ts}', path: 'src' })).toBe(
      '2 files match "*.{md,ts}" in src:\nsrc/index.ts\nsrc/readme.md',
    );
    expect(await glob({ pattern: '**/*.py' })).toBe('No files match "**/*.py" in .');
  });

  it('leaves out what .gitignore files ignore (nested ones and negations too), .git and node_modules', async () => {
    await files({
      '.gitignore': 'dist/\n*.log\n',
      'dist/bundle.ts': '',
      'debug.log': '',
      'src/.gitignore': 'generated.ts\n!keep.log\n',
      'src/generated.ts': '',
      'src/keep.log': '',
      'src/drop.log': '',
      '.git/hooks/pre-commit.ts': '',
      'node_modules/pkg/index.ts': '',
    });
    const listed = (await glob({ pattern: '**/*' })).split('\n').slice(1);
    expect(listed).toEqual([
      '.env.ts',
      '.gitignore',
      'README.md',
      'src/.gitignore',
      'src/index.ts',
      'src/keep.log',
      'src/lib/util.test.ts',
      'src/lib/util.ts',
      'src/readme.md',
    ]);
    // A .gitignore above the folder searched applies too.
    expect(await glob({ pattern: '*', path: 'src' })).not.toMatch(/generated|drop\.log/);
    // node_modules is searched when the pattern asks for it.
    expect(await glob({ pattern: 'node_modules/**/*.ts' })).toBe(
      '1 file matches "node_modules/**/*.ts" in .:\nnode_modules/pkg/index.ts',
    );
  });

  it('lists what git lists: the same files as git ls-files --cached --others --exclude-standard', async () => {
    await files({
      '.gitignore': '*.log\nbuild/\n/top-only.txt\ncache*\n!cache-keep.txt\n# comment\n\\#hash.txt\n',
      'a.log': '',
      'top-only.txt': '',
      'sub/top-only.txt': '',
      'build/x.js': '',
      'sub/build/y.js': '',
      'cache1.txt': '',
      'cache-keep.txt': '',
      '#hash.txt': '',
      'sub/.gitignore': '!important.log\n*.tmp\ndeep/\n',
      'sub/important.log': '',
      'sub/other.log': '',
      'sub/x.tmp': '',
      'sub/deep/z.txt': '',
      'sub/deeper/ok.tmp.txt': '',
      'sub/deeper/.gitignore': '/ok*\n',
      'sub/deeper/keep.md': '',
      'docs/a b.md': '',
      'docs/ünï.md': '',
    });
    execFileSync('git', ['init', '-q'], { cwd: root });
    const git = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
      cwd: root,
    })
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .sort();
    const listed = (await glob({ pattern: '**/*', max_results: 1000 })).split('\n').slice(1);
    expect(listed).toEqual(git);
    // Spot checks that the rules did something: a nested negation, an anchored pattern, an escaped '#'.
    expect(listed).toContain('sub/important.log');
    expect(listed).toContain('sub/top-only.txt');
    expect(listed).not.toContain('top-only.txt');
    expect(listed).not.toContain('#hash.txt');
  });

  it('caps the list and says how many more there are', async () => {
    await files(
      Object.fromEntries(
        Array.from({ length: 30 }, (_, i) => [`many/f${String(i).padStart(2, '0')}.txt`, '']),
      ),
    );
    const out = (await glob({ pattern: 'many/*.txt', max_results: 5 })).split('\n');
    expect(out[0]).toBe('30 files match "many/*.txt" in .:');
    expect(out.slice(1, 6)).toEqual([
      'many/f00.txt',
      'many/f01.txt',
      'many/f02.txt',
      'many/f03.txt',
      'many/f04.txt',
    ]);
    expect(out[6]).toBe('[25 more not shown: narrow the pattern or raise max_results]');
  });

  it('stays inside the working directory: no absolute patterns, no "..", no following links out', async () => {
    await symlink(join(work.path, 'outside'), join(root, 'out-link'));
    expect(await refusal({ pattern: '../outside/*.ts' })).toMatch(/".." segments/);
    expect(await refusal({ pattern: `${work.path}/outside/*.ts` })).toMatch(/relative/);
    expect(await refusal({ pattern: '*.ts', path: '../outside' })).toMatch(/".."/);
    expect(await refusal({ pattern: '*.ts', path: 'out-link' })).toMatch(/symbolic link/);
    expect(await glob({ pattern: '**/secret.ts' })).toMatch(/^No files match/);
    expect(await refusal({ pattern: '*', path: 'README.md' })).toMatch(/is a file/);
    expect(await refusal({ pattern: '' })).toMatch(/pattern is required/);
  });
});
