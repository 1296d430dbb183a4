import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { type Entrypoint, isEntrypointError } from '@birdie/entrypoints';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as tools from '../filesystem/tools.mjs';
import { entrypointRefusal, snapshot, toolEntrypoint } from './helpers.js';

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;

let work: TempDir;
let root: string;
let outside: string;
const entrypoints = new Map<string, Entrypoint>();
const originalCwd = process.cwd();

async function run(tool: string, args: Record<string, unknown>, timeoutMs = 10_000): Promise<string> {
  let entrypoint = entrypoints.get(tool);
  if (!entrypoint) {
    entrypoint = await toolEntrypoint('filesystem', tool);
    entrypoints.set(tool, entrypoint);
  }
  return (await entrypoint.run(args, { cwd: root, timeoutMs })).output;
}

const refusal = (tool: string, args: Record<string, unknown>) =>
  entrypointRefusal(() => run(tool, args), `${tool} ${JSON.stringify(args)}`);

beforeEach(async () => {
  work = await makeTempDir('birdie-fs-');
  root = join(work.path, 'root');
  outside = join(work.path, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'top secret\n');
  // The node: entrypoint runs tools in-process: the tools use the call's cwd when the runtime passes one, and the
  // process's working directory otherwise. Both point at the root here.
  process.chdir(root);
});

afterEach(async () => {
  process.chdir(originalCwd);
  await work.cleanup();
});

const HOSTILE_CONTENT: Record<string, string> = {
  plain: 'hello world\n',
  quotes: `double "quoted" and single 'quoted' and "unbalanced '`,
  backslashes: 'back\\slash \\n is not a newline, \\\\ two, trailing \\',
  newlines: 'line one\nline two\n\n\nline five without newline at end',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${HOME} is exactly what must survive
  'shell syntax': '$(touch MARKER) `touch MARKER` ${HOME} $HOME; touch MARKER && echo | cat > MARKER',
  'crlf and tabs': 'a\tb\r\nc\r\n\r\n',
  unicode: 'naïve café — 日本語 — 👋🏽 — e\u0301 — \u202Eright-to-left\u202C — \uFEFFbom inside',
  'echo flags': '-n',
  'echo escapes': '-e \\x41\\c',
  'format strings': '%s %d %n %%',
  empty: '',
  'only newlines': '\n\n\n',
  json: '{"a": [1, 2, {"b": "c\\"d"}], "e": null}',
};

describe('filesystem: content round-trips byte for byte', () => {
  for (const [label, content] of Object.entries(HOSTILE_CONTENT)) {
    it(`write_file then read_file: ${label}`, async () => {
      await run('write_file', { path: 'notes/file.txt', content });
      expect(await readFile(join(root, 'notes/file.txt'))).toEqual(Buffer.from(content, 'utf8'));
      expect(await run('read_file', { path: 'notes/file.txt' })).toBe(content);
      await expect(stat(join(root, 'MARKER'))).rejects.toMatchObject({ code: 'ENOENT' });
    });
  }

  it('append_file adds exactly the given bytes, also to a missing file', async () => {
    const first = HOSTILE_CONTENT['shell syntax'] as string;
    const second = HOSTILE_CONTENT.unicode as string;
    expect(await run('append_file', { path: 'log.txt', content: first })).toMatch(/^Created log\.txt/);
    expect(await run('append_file', { path: 'log.txt', content: second })).toMatch(/^Appended/);
    expect(await readFile(join(root, 'log.txt'), 'utf8')).toBe(first + second);
    await expect(stat(join(root, 'MARKER'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a large file round-trips too', async () => {
    const content = Array.from({ length: 5000 }, (_, i) => `${i}: ${'x'.repeat(i % 97)} "q" \\ $(i)`).join(
      '\n',
    );
    await run('write_file', { path: 'big.txt', content });
    expect(await readFile(join(root, 'big.txt'), 'utf8')).toBe(content);
  });
});

describe('filesystem: writes are atomic', () => {
  it('leaves no temporary files behind and keeps the file mode', async () => {
    await writeFile(join(root, 'private.txt'), 'old');
    await chmod(join(root, 'private.txt'), 0o600);
    await run('write_file', { path: 'private.txt', content: 'new' });
    await run('append_file', { path: 'private.txt', content: '+more' });
    expect(await readFile(join(root, 'private.txt'), 'utf8')).toBe('new+more');
    expect((await stat(join(root, 'private.txt'))).mode & 0o777).toBe(0o600);
    expect(await readdir(root)).toEqual(['private.txt']);
  });

  it('concurrent writes leave one whole version, never a mix', async () => {
    const versions = Array.from({ length: 12 }, (_, i) => `${String(i).repeat(20_000)}\n`);
    await Promise.all(versions.map((content) => run('write_file', { path: 'race.txt', content })));
    expect(versions).toContain(await readFile(join(root, 'race.txt'), 'utf8'));
    expect(await readdir(root)).toEqual(['race.txt']);
  });

  it('concurrent appends to one file are all kept (the agent runs a round of calls side by side)', async () => {
    await writeFile(join(root, 'log.txt'), '');
    const lines = Array.from({ length: 20 }, (_, i) => `entry ${i}\n`);
    await Promise.all(lines.map((content) => run('append_file', { path: 'log.txt', content })));
    const kept = (await readFile(join(root, 'log.txt'), 'utf8')).split(/(?<=\n)/);
    expect(kept.sort()).toEqual([...lines].sort());
  });

  it('writing through a symbolic link inside the root updates its target and keeps the link', async () => {
    await writeFile(join(root, 'real.txt'), 'before');
    await symlink('real.txt', join(root, 'alias.txt'));
    await run('write_file', { path: 'alias.txt', content: 'after' });
    expect(await readFile(join(root, 'real.txt'), 'utf8')).toBe('after');
    expect((await lstat(join(root, 'alias.txt'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(root, 'alias.txt'))).toBe('real.txt');
  });
});

describe('filesystem: nothing outside the working directory', () => {
  beforeEach(async () => {
    await mkdir(join(root, 'sub'));
    await symlink(outside, join(root, 'link-out'));
    await symlink(join(outside, 'secret.txt'), join(root, 'secret-link'));
    await symlink(join(outside, 'not-yet.txt'), join(root, 'dangling-out'));
  });

  const attempts: Array<[string, () => string]> = [
    ['a .. segment', () => '../outside/secret.txt'],
    ['.. after a folder', () => 'sub/../../outside/secret.txt'],
    ['.. that would stay inside', () => 'sub/../x.txt'],
    ['an absolute path outside', () => join(outside, 'secret.txt')],
    ['/etc/passwd', () => '/etc/passwd'],
    ['a folder symlink that leads out', () => 'link-out/secret.txt'],
    ['a file symlink that leads out', () => 'secret-link'],
    ['a dangling symlink that leads out', () => 'dangling-out'],
    ['a new file under a symlink that leads out', () => 'link-out/new/file.txt'],
  ];

  for (const [label, path] of attempts) {
    it(`refuses ${label} for every tool`, async () => {
      const before = await snapshot(outside);
      const calls: Array<[string, Record<string, unknown>]> = [
        ['read_file', { path: path() }],
        ['list_dir', { path: path() }],
        ['write_file', { path: path(), content: 'pwned' }],
        ['append_file', { path: path(), content: 'pwned' }],
        ['create_directory', { path: path() }],
        ['search_files', { pattern: 'secret', path: path() }],
      ];
      for (const [tool, args] of calls) {
        const message = await refusal(tool, args);
        expect(message, `${tool} ${label}`).toMatch(
          /outside the working directory|may not contain "\.\." segments/,
        );
        expect(message).not.toContain('top secret');
      }
      expect(await snapshot(outside)).toEqual(before);
    });
  }

  it('refuses NUL bytes and empty paths with a clear message', async () => {
    expect(await refusal('read_file', { path: 'a\0b' })).toMatch(/NUL/);
    expect(await refusal('write_file', { path: '', content: 'x' })).toMatch(/A path is required/);
  });

  it('accepts an absolute path under the name the root was given by, even when that name is a symbolic link', async () => {
    const alias = join(work.path, 'alias-of-root');
    await symlink(root, alias);
    await tools.write_file({ path: join(alias, 'via-alias.txt'), content: 'ok' }, { cwd: alias });
    expect(await readFile(join(root, 'via-alias.txt'), 'utf8')).toBe('ok');
    await expect(
      tools.read_file({ path: join(outside, 'secret.txt') }, { cwd: alias }),
    ).rejects.toMatchObject({
      code: 'outside-root',
    });
  });

  it('words the refusal by what went wrong', async () => {
    expect(await refusal('read_file', { path: join(outside, 'secret.txt') })).toMatch(
      /it is outside the working directory\. Only files under it can be used\.$/,
    );
    expect(await refusal('read_file', { path: 'link-out/secret.txt' })).toMatch(
      /it leads outside the working directory through a symbolic link/,
    );
  });

  it('accepts an absolute path inside the root', async () => {
    await run('write_file', { path: join(root, 'sub', 'abs.txt'), content: 'ok' });
    expect(await run('read_file', { path: 'sub/abs.txt' })).toBe('ok');
  });

  it('search never follows a link out of the root', async () => {
    const output = await run('search_files', { pattern: 'top secret' });
    expect(output).toMatch(/^No matches/);
  });
});

describe('filesystem: reading, listing, searching', () => {
  it('reads a line range exactly, and says when the range is off', async () => {
    await writeFile(join(root, 'five.txt'), 'one\ntwo\r\nthree\nfour\nfive');
    expect(await run('read_file', { path: 'five.txt', start_line: 2, end_line: 3 })).toBe('two\r\nthree\n');
    expect(await run('read_file', { path: 'five.txt', start_line: 4 })).toBe('four\nfive');
    expect(await run('read_file', { path: 'five.txt', end_line: 1 })).toBe('one\n');
    expect(await refusal('read_file', { path: 'five.txt', start_line: 9 })).toMatch(
      /has 5 lines; start_line 9/,
    );
    expect(await refusal('read_file', { path: 'five.txt', start_line: 3, end_line: 2 })).toMatch(
      /Bad line range/,
    );
  });

  it('follows a working directory reached through a link that is repointed between reads', async () => {
    for (const [name, text] of [
      ['release-1', 'one\n'],
      ['release-2', 'two\n'],
    ] as const) {
      await mkdir(join(work.path, name));
      await writeFile(join(work.path, name, 'VERSION'), text);
    }
    const current = join(work.path, 'current');
    await symlink(join(work.path, 'release-1'), current);
    expect(await tools.read_file({ path: 'VERSION' }, { cwd: current })).toBe('one\n');
    await rm(current);
    await symlink(join(work.path, 'release-2'), current);
    expect(await tools.read_file({ path: 'VERSION' }, { cwd: current })).toBe('two\n');
  });

  it('resolves a working directory given with a link and ".." the way the system does', async () => {
    // Lexically <work>/link/../root is <work>/root; the system goes through the link: <work>/outside/root.
    await mkdir(join(outside, 'deep'));
    await mkdir(join(outside, 'root'));
    await symlink(join(outside, 'deep'), join(work.path, 'link'));
    await writeFile(join(root, 'which.txt'), 'lexical\n');
    await writeFile(join(outside, 'root', 'which.txt'), 'system\n');
    const cwd = `${work.path}/link/../root`;
    expect(await tools.read_file({ path: 'which.txt' }, { cwd })).toBe('system\n');
    expect(await tools.list_dir({}, { cwd })).toMatch(/^\.: 1 entry/);
  });

  it('reads ranges that cross chunk boundaries exactly as the lines are stored', async () => {
    // Lines of varying length with CRLF and multi-byte characters, over several 16 KiB / 256 KiB chunks.
    const lines = Array.from(
      { length: 6000 },
      (_, i) => `${i + 1}: ${'é👋🏽x'.repeat(i % 37)}${i % 5 === 0 ? '\r\n' : '\n'}`,
    );
    await writeFile(join(root, 'mixed.txt'), lines.join(''));
    for (const [start, end] of [
      [1, 3],
      [150, 160],
      [2999, 3003],
      [5990, 6000],
      [6000, 9000],
    ] as const) {
      expect(await run('read_file', { path: 'mixed.txt', start_line: start, end_line: end })).toBe(
        lines.slice(start - 1, end).join(''),
      );
    }
    expect(await refusal('read_file', { path: 'mixed.txt', start_line: 6001 })).toMatch(/has 6000 lines/);
  });

  it('stops a range at the byte limit after whole lines, and says how to read on', async () => {
    const lines = Array.from(
      { length: 1000 },
      (_, i) => `${String(i + 1).padStart(4, '0')}${'.'.repeat(95)}\n`,
    );
    await writeFile(join(root, 'hundreds.txt'), lines.join(''));
    const output = await run('read_file', { path: 'hundreds.txt', start_line: 11, end_line: 900 });
    expect(output).toBe(
      `${lines.slice(10, 310).join('')}\n[truncated: the 30000-byte limit of one call is reached; this shows lines 11-310. Call read_file with start_line=311 and end_line=900 to read on.]`,
    );
    expect(await run('read_file', { path: 'hundreds.txt', start_line: 311, end_line: 312 })).toBe(
      lines.slice(310, 312).join(''),
    );
  });

  it('cuts a line longer than the limit on a whole character', async () => {
    await writeFile(join(root, 'long.txt'), `a${'é'.repeat(20_000)}\nnext\n`);
    const output = await run('read_file', { path: 'long.txt' });
    const [text, note] = output.split('\n[truncated: ');
    expect(text).toBe(`a${'é'.repeat(14_999)}`);
    expect(note).toBe(
      'line 1 of "long.txt" is longer than 30000 bytes; this shows its first 29999 bytes. search_files or the shell can pick out parts of it; start_line=2 reads the lines after it.]',
    );
    expect(await run('read_file', { path: 'long.txt', start_line: 2 })).toBe('next\n');
  });

  it('reads an empty file whole, and refuses a range in it', async () => {
    await writeFile(join(root, 'empty.txt'), '');
    expect(await run('read_file', { path: 'empty.txt' })).toBe('');
    expect(await refusal('read_file', { path: 'empty.txt', start_line: 1 })).toMatch(/has 0 lines/);
  });

  it('returns the first part of a very large file with directions to read on', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `line ${i + 1} ${'.'.repeat(20)}`);
    await writeFile(join(root, 'large.txt'), `${lines.join('\n')}\n`);
    const output = await run('read_file', { path: 'large.txt' });
    const note =
      /\n\[truncated: "large\.txt" is 122893 bytes; this shows lines 1-(\d+)\. Call read_file with start_line=(\d+) to read on\.\]$/.exec(
        output,
      );
    expect(note).not.toBeNull();
    const shown = Number(note?.[1]);
    expect(Number(note?.[2])).toBe(shown + 1);
    expect(output.startsWith(`${lines.slice(0, shown).join('\n')}\n`)).toBe(true);
    expect(await run('read_file', { path: 'large.txt', start_line: shown + 1, end_line: shown + 1 })).toBe(
      `${lines[shown]}\n`,
    );
  });

  it('refuses binary files and folders with a hint', async () => {
    await writeFile(join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    expect(await refusal('read_file', { path: 'image.bin' })).toMatch(/binary file \(6 bytes\)/);
    await mkdir(join(root, 'folder'));
    expect(await refusal('read_file', { path: 'folder' })).toMatch(/is a directory; use list_dir/);
    expect(await refusal('read_file', { path: 'missing.txt' })).toMatch(/No such file: "missing.txt"/);
  });

  it('lists a folder with kinds, sizes and link targets', async () => {
    await mkdir(join(root, 'src'));
    await writeFile(join(root, 'README.md'), '12345');
    await writeFile(join(root, '.hidden'), '');
    await symlink('src', join(root, 'current'));
    expect(await run('list_dir', {})).toBe(
      ['.: 4 entries', '.hidden  (0 bytes)', 'README.md  (5 bytes)', 'current -> src', 'src/'].join('\n'),
    );
    expect(await run('list_dir', { path: 'src' })).toBe('src: 0 entries');
  });

  it('creates folders, including parents, and says when one exists', async () => {
    expect(await run('create_directory', { path: 'a/b/c' })).toBe('Created a/b/c/.');
    expect(await run('create_directory', { path: 'a/b/c' })).toBe('a/b/c already exists.');
    expect((await stat(join(root, 'a/b/c'))).isDirectory()).toBe(true);
    await writeFile(join(root, 'file'), '');
    expect(await refusal('create_directory', { path: 'file' })).toMatch(/already exists and is a file/);
  });

  it('searches like grep -rn, skipping .git, node_modules and binary files', async () => {
    await mkdir(join(root, 'src'));
    await mkdir(join(root, '.git'));
    await mkdir(join(root, 'node_modules'));
    await writeFile(join(root, 'src/a.ts'), 'const TODO = 1;\n// todo: later\nfinal line\n');
    await writeFile(join(root, 'src/b.ts'), 'nothing here\n');
    await writeFile(join(root, '.git/config'), 'TODO in git\n');
    await writeFile(join(root, 'node_modules/x.js'), 'TODO in deps\n');
    await writeFile(join(root, 'blob.bin'), Buffer.from('TODO\0binary'));
    expect(await run('search_files', { pattern: 'TODO' })).toBe('src/a.ts:1: const TODO = 1;');
    expect(await run('search_files', { pattern: 'todo', ignore_case: true })).toBe(
      'src/a.ts:1: const TODO = 1;\nsrc/a.ts:2: // todo: later',
    );
    expect(await run('search_files', { pattern: 'TODO = 1;', literal: true, path: 'src/a.ts' })).toBe(
      'src/a.ts:1: const TODO = 1;',
    );
    expect(await run('search_files', { pattern: '.', max_results: 2 })).toBe(
      'src/a.ts:1: const TODO = 1;\nsrc/a.ts:2: // todo: later\n[stopped at 2 matches; narrow the pattern or the path]',
    );
    expect(await run('search_files', { pattern: 'absent' })).toBe(
      'No matches for /absent/ in . (2 files searched).',
    );
    expect(await refusal('search_files', { pattern: '(unclosed' })).toMatch(/Pass literal: true/);
  });

  it('a runaway regular expression is stopped by the timeout and blocks nothing', async () => {
    await writeFile(join(root, 'evil.txt'), `${'a'.repeat(40)}!\n`);
    const failure = await run('search_files', { pattern: '^(a+)+$' }, 500).catch((error: unknown) => error);
    expect(isEntrypointError(failure, 'timeout')).toBe(true);
    expect(await run('search_files', { pattern: '!$' })).toBe(`evil.txt:1: ${'a'.repeat(40)}!`);
  });
});

describe('filesystem: the call context', () => {
  it('confines to the cwd the runtime passes, whatever the process directory is', async () => {
    const other = join(work.path, 'session-cwd');
    await mkdir(other);
    await tools.write_file({ path: 'here.txt', content: 'session' }, { cwd: other });
    expect(await readFile(join(other, 'here.txt'), 'utf8')).toBe('session');
    await expect(stat(join(root, 'here.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(tools.read_file({ path: '../root/x' }, { cwd: other })).rejects.toMatchObject({
      code: 'outside-root',
    });
  });
});

/** An editor's buffers: text by absolute path, and a record of every call the tools made. */
function editorBuffers(initial: Record<string, string> = {}) {
  const buffers = new Map(Object.entries(initial));
  const calls: string[] = [];
  return {
    buffers,
    calls,
    files: {
      async readTextFile(path: string) {
        calls.push(`read ${path}`);
        const text = buffers.get(path);
        return text ?? (await readFile(path, 'utf8'));
      },
      async writeTextFile(path: string, content: string) {
        calls.push(`write ${path}`);
        buffers.set(path, content);
      },
    },
  };
}

describe("filesystem: through the application's file access (an editor's buffers)", () => {
  const through = async (tool: string, args: Record<string, unknown>, files: object) => {
    const entrypoint = await toolEntrypoint('filesystem', tool);
    return (await entrypoint.run(args, { cwd: root, files: files as never })).output;
  };

  it('reads what the editor holds, unsaved edits included, not the disk', async () => {
    await writeFile(join(root, 'a.txt'), 'on disk\n');
    const editor = editorBuffers({ [join(root, 'a.txt')]: 'unsaved\nedit\n' });
    expect(await through('read_file', { path: 'a.txt' }, editor.files)).toBe('unsaved\nedit\n');
    expect(await through('read_file', { path: 'a.txt', start_line: 2 }, editor.files)).toBe('edit\n');
    expect(editor.calls).toEqual([`read ${join(root, 'a.txt')}`, `read ${join(root, 'a.txt')}`]);
  });

  it('answers exactly as a disk read does: ranges, the byte limit, long lines, empty files', async () => {
    const files: Record<string, string> = {
      'hundreds.txt': Array.from(
        { length: 1000 },
        (_, i) => `${String(i + 1).padStart(4, '0')}${'.'.repeat(95)}\n`,
      ).join(''),
      'long.txt': `a${'é'.repeat(20_000)}\nnext\n`,
      'mixed.txt': 'one\r\ntwo\n\nno newline at end',
      'empty.txt': '',
    };
    const requests = [
      {},
      { start_line: 1 },
      { start_line: 2, end_line: 3 },
      { start_line: 11, end_line: 900 },
      { start_line: 3 },
      { start_line: 5000 },
    ];
    const editor = editorBuffers();
    for (const [name, text] of Object.entries(files)) {
      await writeFile(join(root, name), text);
      for (const request of requests) {
        const args = { path: name, ...request };
        const disk = await run('read_file', args).catch((error: Error) => `refused: ${error.message}`);
        const buffer = await through('read_file', args, editor.files).catch(
          (error: Error) => `refused: ${error.message}`,
        );
        expect(buffer, `${name} ${JSON.stringify(request)}`).toBe(disk);
      }
    }
  });

  it('writes and appends through the editor, leaving the disk to it', async () => {
    await writeFile(join(root, 'log.txt'), 'disk copy\n');
    const editor = editorBuffers({ [join(root, 'log.txt')]: 'buffer copy\n' });
    expect(await through('write_file', { path: 'new/file.txt', content: 'fresh $(x)\n' }, editor.files)).toBe(
      'Wrote 11 bytes to new/file.txt.',
    );
    expect(await through('append_file', { path: 'log.txt', content: 'more\n' }, editor.files)).toBe(
      'Appended 5 bytes to log.txt (now 17 bytes).',
    );
    expect(await through('append_file', { path: 'other.txt', content: 'first\n' }, editor.files)).toBe(
      'Created other.txt with 6 bytes.',
    );
    expect(editor.buffers.get(join(root, 'new', 'file.txt'))).toBe('fresh $(x)\n');
    expect(editor.buffers.get(join(root, 'log.txt'))).toBe('buffer copy\nmore\n');
    expect(editor.buffers.get(join(root, 'other.txt'))).toBe('first\n');
    // The disk is the editor's business now: birdie wrote nothing there but the new folder.
    expect(await readFile(join(root, 'log.txt'), 'utf8')).toBe('disk copy\n');
    await expect(stat(join(root, 'new', 'file.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(stat(join(root, 'other.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('confines paths first: nothing outside the root, no folder, reaches the editor', async () => {
    await mkdir(join(root, 'dir'));
    await symlink(join(outside, 'secret.txt'), join(root, 'link.txt'));
    const editor = editorBuffers();
    for (const [tool, args] of [
      ['read_file', { path: '../outside/secret.txt' }],
      ['read_file', { path: 'link.txt' }],
      ['read_file', { path: 'dir' }],
      ['write_file', { path: join(outside, 'x.txt'), content: 'x' }],
      ['append_file', { path: 'link.txt', content: 'x' }],
    ] as const) {
      await expect(through(tool, args, editor.files), `${tool} ${JSON.stringify(args)}`).rejects.toThrow();
    }
    expect(editor.calls).toEqual([]);
  });
});
