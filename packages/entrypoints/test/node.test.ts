import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EntrypointError, resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

let root: string;
let skillDir: string;

beforeAll(async () => {
  root = await tempDir();
  skillDir = join(root, 'skill');
  await mkdir(join(skillDir, 'lib'), { recursive: true });
  await writeFile(
    join(skillDir, 'tools.mjs'),
    `export let imports = 0;
imports += 1;
export function add({ a, b }) { return { sum: a + b, imports }; }
export function greet({ name }) { return 'hello ' + name; }
export function nothing() {}
export function circular() { const o = {}; o.self = o; return o; }
export function fails() { throw new RangeError('out of range'); }
export function wait(_args, { signal }) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => resolve('finished'), 10000);
    signal.addEventListener('abort', () => { clearTimeout(t); reject(new Error('saw abort: ' + signal.reason.code)); });
  });
}
export function context(_args, { signal, cwd, env }) { return { aborted: signal.aborted, cwd, env }; }
export async function viaFiles({ path }, { files }) {
  if (!files) return 'no file access';
  await files.writeTextFile(path, (await files.readTextFile(path, { line: 2, limit: 1 })) + '!');
  return 'written';
}
export function big() { return 'z'.repeat(50000); }
export function picture() {
  return { content: [{ type: 'text', text: 'dot.png: image/png, 3 bytes' }, { type: 'image', mimeType: 'image/png', data: 'AQID' }] };
}
export function notContent() { return { content: [{ type: 'image', mimeType: 'text/html', data: 'AQID' }] }; }
export function contentAndMore() { return { content: [{ type: 'text', text: 'x' }], isError: true }; }
export const notAFunction = 42;
export default async ({ q, limit }) => ({ q, limit });
`,
  );
  await writeFile(join(skillDir, 'lib', 'nested.mjs'), 'export const run = () => "nested";\n');
  await writeFile(join(root, 'outside.mjs'), 'export const run = () => "escaped";\n');
  await symlink(join(root, 'outside.mjs'), join(skillDir, 'link.mjs'));
});

async function failure(promise: Promise<unknown>): Promise<EntrypointError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EntrypointError);
  return error as EntrypointError;
}

describe('node:', () => {
  it('calls the export with the args and JSON-stringifies non-strings; imports once', async () => {
    const ep = resolveEntrypoint('node:tools.mjs#add', { skillDir });
    expect(ep).toMatchObject({ scheme: 'node', raw: false, placeholders: [] });
    expect(await ep.run({ a: 2, b: 3 })).toEqual({
      output: '{\n  "sum": 5,\n  "imports": 1\n}',
      truncated: false,
    });
    expect(JSON.parse((await ep.run({ a: 1, b: 1 })).output)).toEqual({ sum: 2, imports: 1 });
    expect(
      (await resolveEntrypoint('node:./tools.mjs#greet', { skillDir }).run({ name: 'Ada' })).output,
    ).toBe('hello Ada');
    expect((await resolveEntrypoint('node:lib/nested.mjs#run', { skillDir }).run({})).output).toBe('nested');
    expect((await resolveEntrypoint('node:tools.mjs#nothing', { skillDir }).run({})).output).toBe('');
  });

  // Exploratory report (skill author) #1: an edit to a tool's module never took effect in a running process (the
  // REPL after /skill reload, birdie mcp), and a module fixed after a syntax error stayed an import failure.
  it('imports the module again once its file changed: an edit and a fixed syntax error take effect', async () => {
    const file = join(skillDir, 'edited.mjs');
    const { utimes } = await import('node:fs/promises');
    const write = async (text: string, seconds: number) => {
      await writeFile(file, text);
      // An explicit mtime: two writes within the file system's clock tick would otherwise look the same.
      await utimes(file, seconds, seconds);
    };
    await write("export const v = () => 'version 1';\n", 1_000_000);
    const ep = resolveEntrypoint('node:edited.mjs#v', { skillDir });
    expect((await ep.run({})).output).toBe('version 1');
    expect((await ep.run({})).output).toBe('version 1');
    await write("export const v = () => 'version 2';\n", 1_000_010);
    expect((await ep.run({})).output).toBe('version 2');
    await write('export const v = () => }}};\n', 1_000_020);
    expect((await failure(ep.run({}))).code).toBe('module-not-found');
    await write("export const v = () => 'fixed';\n", 1_000_030);
    expect((await ep.run({})).output).toBe('fixed');
  });

  it('passes { signal, cwd, env }: cwd defaults to the skill folder, env is only what the caller gave', async () => {
    const ep = resolveEntrypoint('node:tools.mjs#context', { skillDir });
    expect(JSON.parse((await ep.run({})).output)).toEqual({ aborted: false, cwd: skillDir, env: {} });
    const given = JSON.parse((await ep.run({}, { cwd: root, env: { UNITS: 'metric' } })).output);
    expect(given).toEqual({ aborted: false, cwd: root, env: { UNITS: 'metric' } });
  });

  it("passes the caller's file access as context.files, and nothing when there is none", async () => {
    const ep = resolveEntrypoint('node:tools.mjs#viaFiles', { skillDir });
    expect((await ep.run({ path: '/x' })).output).toBe('no file access');
    const calls: unknown[] = [];
    const files = {
      readTextFile: async (path: string, options?: { line?: number; limit?: number }) => {
        calls.push(['read', path, options]);
        return 'buffer';
      },
      writeTextFile: async (path: string, content: string) => {
        calls.push(['write', path, content]);
      },
    };
    expect((await ep.run({ path: '/x' }, { files })).output).toBe('written');
    expect(calls).toEqual([
      ['read', '/x', { line: 2, limit: 1 }],
      ['write', '/x', 'buffer!'],
    ]);
    const context = resolveEntrypoint('node:tools.mjs#context', { skillDir });
    expect(Object.keys(JSON.parse((await context.run({}, { files })).output))).toEqual([
      'aborted',
      'cwd',
      'env',
    ]);
  });

  it('uses the default export and schema defaults', async () => {
    const schema = { properties: { limit: { default: 10 } } };
    const result = await resolveEntrypoint('node:tools.mjs', { skillDir, schema }).run({ q: 'birds' });
    expect(JSON.parse(result.output)).toEqual({ q: 'birds', limit: 10 });
  });

  it.each([
    ['node:../outside.mjs#run', 'path-escape'],
    ['node:lib/../../outside.mjs#run', 'path-escape'],
    [`node:${'/etc/passwd'}#x`, 'path-escape'],
    ['node:tools.mjs#not-an-identifier', 'bad-entrypoint'],
    ['node:#run', 'bad-entrypoint'],
  ])('refuses %s at resolve time (%s)', (entrypoint, code) => {
    expect(() => resolveEntrypoint(entrypoint, { skillDir })).toThrow(expect.objectContaining({ code }));
  });

  it('refuses a symlink that leads out of the skill folder', async () => {
    const error = await failure(resolveEntrypoint('node:link.mjs#run', { skillDir }).run({}));
    expect(error.code).toBe('path-escape');
  });

  it('reports missing modules and exports', async () => {
    expect((await failure(resolveEntrypoint('node:nope.mjs#run', { skillDir }).run({}))).code).toBe(
      'module-not-found',
    );
    expect((await failure(resolveEntrypoint('node:tools.mjs#missing', { skillDir }).run({}))).code).toBe(
      'export-not-found',
    );
    expect((await failure(resolveEntrypoint('node:tools.mjs#notAFunction', { skillDir }).run({}))).code).toBe(
      'export-not-found',
    );
  });

  it('wraps a thrown error as call-failed and an unserialisable result as bad-output', async () => {
    const error = await failure(resolveEntrypoint('node:tools.mjs#fails', { skillDir }).run({}));
    expect(error.code).toBe('call-failed');
    expect(error.message).toContain('RangeError: out of range');
    expect(error.cause).toBeInstanceOf(RangeError);
    expect((await failure(resolveEntrypoint('node:tools.mjs#circular', { skillDir }).run({}))).code).toBe(
      'bad-output',
    );
  });

  it('aborts the signal it passed on timeout and on cancellation', async () => {
    const ep = resolveEntrypoint('node:tools.mjs#wait', { skillDir });
    expect((await failure(ep.run({}, { timeoutMs: 50 }))).code).toBe('timeout');
    const controller = new AbortController();
    const run = ep.run({}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect((await failure(run)).code).toBe('aborted');
  });

  it('caps the output', async () => {
    const result = await resolveEntrypoint('node:tools.mjs#big', { skillDir }).run(
      {},
      { maxOutputBytes: 1_000 },
    );
    expect(result.truncated).toBe(true);
    expect(result.output).toContain('bytes of output dropped');
  });

  it('returns the images of a { content: [...] } result beside its text, and any other object as JSON', async () => {
    const run = (name: string) => resolveEntrypoint(`node:tools.mjs#${name}`, { skillDir }).run({});
    expect(await run('picture')).toEqual({
      output: 'dot.png: image/png, 3 bytes',
      truncated: false,
      images: [{ mimeType: 'image/png', data: 'AQID' }],
    });
    // Not an image type, or a key beside content: plain JSON, as before.
    for (const name of ['notContent', 'contentAndMore']) {
      const result = await run(name);
      expect(result.images).toBeUndefined();
      expect(JSON.parse(result.output)).toHaveProperty('content');
    }
  });
});
