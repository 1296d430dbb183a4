import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Entrypoint, resolveEntrypoint } from '@birdie/entrypoints';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entrypointRefusal, loadBundledSkill, skillsRoot, snapshot, toolEntrypoint } from './helpers.js';

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;

let work: TempDir;
let root: string;
let outside: string;
let entrypoint: Entrypoint;

async function edit(args: Record<string, unknown>): Promise<string> {
  entrypoint ??= await toolEntrypoint('filesystem', 'edit_file');
  return (await entrypoint.run(args, { cwd: root, timeoutMs: 10_000 })).output;
}

async function entrypointRun(tool: string, args: Record<string, unknown>): Promise<string> {
  return (await (await toolEntrypoint('filesystem', tool)).run(args, { cwd: root, timeoutMs: 10_000 }))
    .output;
}

const refusal = (args: Record<string, unknown>) =>
  entrypointRefusal(() => edit(args), `edit_file ${JSON.stringify(args)}`);

/** edit_file's declared `preview:`, resolved and run as the runtime does before asking. */
async function preview(args: Record<string, unknown>): Promise<unknown> {
  const skill = await loadBundledSkill('filesystem');
  const declared = skill.tools.find((t) => t.name === 'edit_file');
  if (!declared?.preview) throw new Error('edit_file declares no preview');
  const run = resolveEntrypoint(declared.preview, { skillDir: skill.dir, schema: declared.schema });
  return JSON.parse((await run.run(args, { cwd: root, timeoutMs: 10_000 })).output);
}

beforeEach(async () => {
  work = await makeTempDir('birdie-fs-edit-');
  root = join(work.path, 'root');
  outside = join(work.path, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'const x = 1;\n');
  await writeFile(join(root, 'app.ts'), 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n');
});

afterEach(async () => {
  await work.cleanup();
});

describe('filesystem: edit_file', () => {
  it('replaces text that occurs once, and says where', async () => {
    expect(await edit({ path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' })).toBe(
      'Edited app.ts: replaced 1 occurrence (line 2).',
    );
    expect(await readFile(join(root, 'app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 3;\nconst a2 = 1;\n');
  });

  it('refuses an ambiguous match, naming the lines, and leaves the file unchanged', async () => {
    const before = await snapshot(work.path);
    const message = await refusal({ path: 'app.ts', old_string: ' = 1;', new_string: ' = 9;' });
    expect(message).toMatch(/occurs 2 times in "app\.ts" \(lines 1, 3\); the file was not changed/);
    expect(message).toMatch(/replace_all/);
    expect(await snapshot(work.path)).toEqual(before);
  });

  it('replaces every occurrence with replace_all', async () => {
    expect(await edit({ path: 'app.ts', old_string: ' = 1;', new_string: ' = 9;', replace_all: true })).toBe(
      'Edited app.ts: replaced 2 occurrences (lines 1, 3).',
    );
    expect(await readFile(join(root, 'app.ts'), 'utf8')).toBe('const a = 9;\nconst b = 2;\nconst a2 = 9;\n');
  });

  it('refuses text that is not there, and a no-op, changing nothing', async () => {
    const before = await snapshot(work.path);
    expect(await refusal({ path: 'app.ts', old_string: 'const c', new_string: 'x' })).toMatch(
      /old_string was not found in "app\.ts"/,
    );
    expect(await refusal({ path: 'app.ts', old_string: 'const a', new_string: 'const a' })).toMatch(
      /nothing would change/,
    );
    expect(await refusal({ path: 'app.ts', old_string: '', new_string: 'x' })).toMatch(/use write_file/);
    expect(await refusal({ path: 'new.ts', old_string: 'a', new_string: 'b' })).toMatch(/No such file/);
    expect(await snapshot(work.path)).toEqual(before);
  });

  it('takes the texts literally: $-patterns, regex characters, CRLF and Unicode round-trip', async () => {
    await writeFile(join(root, 'win.txt'), 'price: (a+b)*\r\nnaïve 👋🏽\r\n');
    await edit({ path: 'win.txt', old_string: '(a+b)*', new_string: "$& $1 $$ $' `$(whoami)`" });
    await edit({ path: 'win.txt', old_string: 'naïve 👋🏽\r\n', new_string: 'café ☕\r\n' });
    expect(await readFile(join(root, 'win.txt'), 'utf8')).toBe(
      "price: $& $1 $$ $' `$(whoami)`\r\ncafé ☕\r\n",
    );
  });

  it('keeps the file mode, and refuses binary and non-UTF-8 files', async () => {
    await chmod(join(root, 'app.ts'), 0o640);
    await edit({ path: 'app.ts', old_string: 'const b', new_string: 'let b' });
    expect((await stat(join(root, 'app.ts'))).mode & 0o777).toBe(0o640);
    await writeFile(join(root, 'blob.bin'), Buffer.from([0x61, 0, 0x62]));
    await writeFile(join(root, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(await refusal({ path: 'blob.bin', old_string: 'a', new_string: 'c' })).toMatch(/binary/);
    expect(await refusal({ path: 'latin1.txt', old_string: 'caf', new_string: 'tea' })).toMatch(/not UTF-8/);
    expect(await readFile(join(root, 'latin1.txt'))).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  });

  it('is confined to the working directory like the other tools', async () => {
    await symlink(join(outside, 'secret.txt'), join(root, 'link.ts'));
    const args = { old_string: 'const x', new_string: 'const y' };
    expect(await refusal({ path: '../outside/secret.txt', ...args })).toMatch(/outside-root|".."/);
    expect(await refusal({ path: join(outside, 'secret.txt'), ...args })).toMatch(
      /outside the working directory/,
    );
    expect(await refusal({ path: 'link.ts', ...args })).toMatch(/through a symbolic link/);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('const x = 1;\n');
  });

  it('applies edits of one file made side by side one after another, losing none (and appends too)', async () => {
    // The tools node runs a round's calls in parallel: each edit must read the file the previous one wrote.
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    await writeFile(join(root, 'many.txt'), `${lines.join('\n')}\n`);
    await Promise.all([
      ...lines.map((line) =>
        edit({ path: 'many.txt', old_string: `${line}\n`, new_string: `${line} edited\n` }),
      ),
      ...lines.map((_, i) => entrypointRun('append_file', { path: 'many.txt', content: `appended ${i}\n` })),
    ]);
    const text = await readFile(join(root, 'many.txt'), 'utf8');
    for (const line of lines) expect(text).toContain(`${line} edited\n`);
    for (let i = 0; i < lines.length; i += 1) expect(text).toContain(`appended ${i}\n`);
  });

  it('edits the application copy when the runtime gives file access (an editor buffer)', async () => {
    const buffers = new Map([[join(root, 'app.ts'), 'unsaved = 1;\n']]);
    entrypoint ??= await toolEntrypoint('filesystem', 'edit_file');
    const files = {
      readTextFile: async (path: string) => buffers.get(path) ?? '',
      writeTextFile: async (path: string, content: string) => void buffers.set(path, content),
    };
    const args = { path: 'app.ts', old_string: 'unsaved', new_string: 'edited' };
    await entrypoint.run(args, { cwd: root, timeoutMs: 10_000, files });
    expect(buffers.get(join(root, 'app.ts'))).toBe('edited = 1;\n');
    expect(await readFile(join(root, 'app.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\nconst a2 = 1;\n');
  });
});

describe('filesystem: edit_file preview (the diff at approval)', () => {
  it('shows the file before and after the edit, and changes nothing', async () => {
    const before = await snapshot(work.path);
    expect(await preview({ path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' })).toEqual(
      {
        changes: [
          {
            kind: 'file',
            path: 'app.ts',
            before: 'const a = 1;\nconst b = 2;\nconst a2 = 1;\n',
            after: 'const a = 1;\nconst b = 3;\nconst a2 = 1;\n',
          },
        ],
      },
    );
    expect(await snapshot(work.path)).toEqual(before);
  });

  it('fails with the tool own refusal on an ambiguous match or a missing file', async () => {
    const ambiguous = entrypointRefusal(
      () => preview({ path: 'app.ts', old_string: ' = 1;', new_string: ' = 9;' }),
      'ambiguous preview',
    );
    await expect(ambiguous).resolves.toMatch(/occurs 2 times/);
    const missing = entrypointRefusal(
      () => preview({ path: 'nope.ts', old_string: 'a', new_string: 'b' }),
      'missing preview',
    );
    await expect(missing).resolves.toMatch(/No such file/);
  });
});

/**
 * Runs `script` (an ES module) in a fresh node, with a file-size limit of `kib` KiB when given: a write past it
 * fails with EFBIG after writing up to the limit (node ignores SIGXFSZ), which interrupts a write in its middle.
 */
function runNode(script: string, kib?: number): Promise<{ code: number | null; signal: string | null }> {
  const limit = kib === undefined ? '' : `ulimit -f ${kib}; `;
  return new Promise((resolve, reject) => {
    const child = spawn(
      'bash',
      ['-c', `${limit}exec "$0" --input-type=module -e "$1"`, process.execPath, script],
      { cwd: root, stdio: ['ignore', 'ignore', 'ignore'] },
    );
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

describe('filesystem: an interrupted edit', () => {
  const old = `${'keep me whole\n'.repeat(100)}MARK\n`; // 1.4 KB
  const huge = 'x'.repeat(64 * 1024);
  const tools = pathToFileURL(join(skillsRoot, 'filesystem', 'tools.mjs')).href;
  const editCall = `const { edit_file } = await import(${JSON.stringify(tools)});
    await edit_file({ path: 'big.txt', old_string: 'MARK', new_string: ${JSON.stringify(huge)} }, { cwd: process.cwd() });`;

  it('leaves the old file whole when the write fails half-way (file size limit), and no temporary file', async () => {
    await writeFile(join(root, 'big.txt'), old);
    await writeFile(join(root, 'plain.txt'), old);
    // Control: a plain in-place write under the same limit leaves a cut file: the limit does stop writes midway.
    const plain = await runNode(
      `import { writeFile } from 'node:fs/promises'; await writeFile('plain.txt', ${JSON.stringify(`${old}${huge}`)});`,
      8,
    );
    expect(plain.code).toBe(1);
    expect((await readFile(join(root, 'plain.txt'), 'utf8')).length).toBe(8 * 1024);

    const failed = await runNode(editCall, 8);
    expect(failed.code).toBe(1);
    expect(await readFile(join(root, 'big.txt'), 'utf8')).toBe(old);
    expect((await readdir(root)).sort()).toEqual(['app.ts', 'big.txt', 'plain.txt']);
  });

  it('leaves the old file whole when the process is killed after writing the new text, before the rename', async () => {
    await writeFile(join(root, 'big.txt'), old);
    // The process dies (SIGKILL: no clean-up runs) at the sync that follows the last write of the temporary file.
    const killed = await runNode(`import { open } from 'node:fs/promises';
      const handle = await open('/dev/null');
      const proto = Object.getPrototypeOf(handle);
      await handle.close();
      proto.sync = () => { process.kill(process.pid, 'SIGKILL'); return new Promise(() => {}); };
      ${editCall}`);
    expect(killed.signal).toBe('SIGKILL');
    expect(await readFile(join(root, 'big.txt'), 'utf8')).toBe(old);
    // What the crash left is the temporary file beside it, complete, which the next write does not trip over.
    const left = (await readdir(root)).filter((name) => name.endsWith('.tmp'));
    expect(left).toHaveLength(1);
    expect(await readFile(join(root, left[0] as string), 'utf8')).toBe(old.replace('MARK', huge));
    await edit({ path: 'big.txt', old_string: 'MARK', new_string: 'DONE' });
    expect(await readFile(join(root, 'big.txt'), 'utf8')).toBe(old.replace('MARK', 'DONE'));
  });
});
