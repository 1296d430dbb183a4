import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveEntrypoint } from '@birdie/entrypoints';
import { makeTempDir } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { entrypointRefusal, loadBundledSkill, snapshot } from './helpers.js';

type TempDir = Awaited<ReturnType<typeof makeTempDir>>;

let work: TempDir;
let root: string;
let outside: string;

/** The tool's declared `preview:`, resolved and run as the runtime does. */
async function preview(tool: string, args: Record<string, unknown>): Promise<unknown> {
  const skill = await loadBundledSkill('filesystem');
  const declared = skill.tools.find((t) => t.name === tool);
  if (!declared?.preview) throw new Error(`${tool} declares no preview`);
  const entrypoint = resolveEntrypoint(declared.preview, { skillDir: skill.dir, schema: declared.schema });
  return JSON.parse((await entrypoint.run(args, { cwd: root, timeoutMs: 10_000 })).output);
}

const refusal = (tool: string, args: Record<string, unknown>) =>
  entrypointRefusal(() => preview(tool, args), `${tool} ${JSON.stringify(args)}`);

beforeEach(async () => {
  work = await makeTempDir('birdie-fs-preview-');
  root = join(work.path, 'root');
  outside = join(work.path, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'top secret\n');
  await writeFile(join(root, 'notes.txt'), 'one\ntwo\n');
});

afterEach(async () => {
  await work.cleanup();
});

describe('filesystem: previews of the changing tools', () => {
  it('say what write_file, append_file and create_directory would change, and change nothing', async () => {
    const before = await snapshot(work.path);
    expect(await preview('write_file', { path: 'notes.txt', content: 'one\n2\n' })).toEqual({
      changes: [{ kind: 'file', path: 'notes.txt', before: 'one\ntwo\n', after: 'one\n2\n' }],
    });
    expect(await preview('write_file', { path: 'new/deep/file.md', content: '# hi\n' })).toEqual({
      changes: [{ kind: 'file', path: 'new/deep/file.md', before: null, after: '# hi\n' }],
    });
    expect(await preview('append_file', { path: 'notes.txt', content: 'three\n' })).toEqual({
      changes: [{ kind: 'file', path: 'notes.txt', before: 'one\ntwo\n', after: 'one\ntwo\nthree\n' }],
    });
    expect(await preview('create_directory', { path: 'src/lib' })).toEqual({
      changes: [{ kind: 'folder', path: 'src/lib' }],
    });
    expect(await preview('create_directory', { path: '.' })).toEqual({
      changes: [{ kind: 'folder', path: '.', note: 'already exists; nothing changes' }],
    });
    // No parent folder was made, no file written.
    expect(await snapshot(work.path)).toEqual(before);
  });

  it('name files they cannot show instead of reading them: large, binary, not regular', async () => {
    await writeFile(join(root, 'big.log'), 'x'.repeat(70 * 1024));
    await writeFile(join(root, 'blob.bin'), Buffer.from([1, 0, 2]));
    execFileSync('mkfifo', [join(root, 'pipe')]);
    expect(await preview('write_file', { path: 'big.log', content: 'short' })).toEqual({
      changes: [{ kind: 'file', path: 'big.log', note: `${70 * 1024} bytes, too large to show` }],
    });
    expect(await preview('append_file', { path: 'blob.bin', content: 'x' })).toEqual({
      changes: [{ kind: 'file', path: 'blob.bin', note: 'not a text file' }],
    });
    // A named pipe would block a read forever: it is never opened.
    expect(await preview('write_file', { path: 'pipe', content: 'x' })).toEqual({
      changes: [{ kind: 'file', path: 'pipe', note: 'not a regular file' }],
    });
    expect(await refusal('write_file', { path: '.', content: 'x' })).toMatch(/is a directory/);
  });

  it('refuse every path the tools refuse, without reading anything outside the working directory', async () => {
    await mkdir(join(root, 'sub'));
    await symlink(outside, join(root, 'link-out'));
    await symlink(join(outside, 'secret.txt'), join(root, 'secret-link'));
    const paths = [
      '../outside/secret.txt',
      'sub/../../outside/secret.txt',
      join(outside, 'secret.txt'),
      '/etc/passwd',
      'link-out/secret.txt',
      'secret-link',
      'link-out/new/file.txt',
    ];
    for (const path of paths) {
      for (const tool of ['write_file', 'append_file', 'create_directory']) {
        const message = await refusal(tool, { path, content: 'x' });
        expect(message, `${tool} ${path}`).toMatch(
          /outside the working directory|may not contain "\.\." segments/,
        );
        expect(message).not.toContain('top secret');
      }
    }
    expect(await refusal('write_file', { path: 'a\0b', content: 'x' })).toMatch(/NUL/);
  });
});
