import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

let dir: string;

beforeAll(async () => {
  dir = await tempDir();
});

/** A fresh folder with two scratch files and two files to keep. */
async function workFolder(name: string): Promise<string> {
  const work = join(dir, name);
  await mkdir(join(work, 'cache'), { recursive: true });
  for (const file of ['a.tmp', 'cache/b.tmp', 'keep.txt', 'cache/notes.md'])
    await writeFile(join(work, file), file);
  return work;
}

const listing = async (work: string) => (await readdir(work, { recursive: true })).map(String).sort();

describe('bash: operators of expression-taking commands are refused as values (issue 12, defect 3)', () => {
  it("find {dir} -name '*.tmp' -delete with dir '!' deletes nothing", async () => {
    const work = await workFolder('bang');
    const clean = resolveEntrypoint("bash:find {dir} -name '*.tmp' -delete", { skillDir: work });
    await expect(clean.run({ dir: '!' }, { cwd: work })).rejects.toMatchObject({ code: 'bad-argument' });
    expect(await listing(work)).toEqual(['a.tmp', 'cache', 'cache/b.tmp', 'cache/notes.md', 'keep.txt']);
    // and the template still does its job
    await clean.run({ dir: 'cache' }, { cwd: work });
    expect(await listing(work)).toEqual(['a.tmp', 'cache', 'cache/notes.md', 'keep.txt']);
  });

  it.each(['(', ')', ',', '!'])('refuses find {dir} … with dir %j before find starts', async (value) => {
    const work = await workFolder(`find-${value.charCodeAt(0)}`);
    const ep = resolveEntrypoint("bash:find {dir} -name '*.tmp' -delete", { skillDir: work });
    const error = await ep.run({ dir: value }, { cwd: work }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'bad-argument' });
    expect(String((error as Error).message)).toContain('find');
    expect(await listing(work)).toHaveLength(5);
  });

  it.each([
    ['test {a} = {b} && echo same', { a: '!', b: 'x' }],
    ['[ -n {a} ] && echo set', { a: ')' }],
    ['[ -f {a} -a -f {b} ] && echo both', { a: '(', b: 'x' }],
    ['expr {a} + 1', { a: 'length' }],
    ['expr {a} : {b}', { a: 'abc', b: '(' }],
    ['expr -- {a} + 1', { a: '*' }],
    ['expr substr {s} 1 2', { s: 'index' }],
  ])('refuses operator values in %j', async (template, args) => {
    await expect(resolveEntrypoint(`bash:${template}`, { skillDir: dir }).run(args)).rejects.toMatchObject({
      code: 'bad-argument',
    });
  });

  it.each([
    ['find ./{dir} -maxdepth 0', { dir: '!' }, './!\n'],
    ['expr {a} + 1', { a: '41' }, '42\n'],
    ['expr x{a} : "x\\(.*\\)"', { a: '(' }, '(\n'],
    ['printf "%s\\n" {a}', { a: '!' }, '!\n'],
    ['[ {a} = "!" ] && echo bang', { a: 'x' }, ''],
  ])('still runs %j where the value is no operator', async (template, args, output) => {
    const ep = resolveEntrypoint(`bash:${template}`, { skillDir: dir });
    if (template.startsWith('find')) await mkdir(join(dir, '!'), { recursive: true });
    const result = await ep.run(args, { cwd: dir }).catch((e: { output?: string }) => ({ output: e.output }));
    expect(result.output).toBe(output);
  });
});
