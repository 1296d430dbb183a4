import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EntrypointError, resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

let dir: string;
let shimPath: string;
const ranLog = () => join(dir, 'ran.log');

beforeAll(async () => {
  dir = await tempDir();
  // `cat` and `ls` shims first on PATH: they log that they ran, then hand over to the real program.
  const bin = join(dir, 'bin');
  await mkdir(bin);
  for (const name of ['cat', 'ls']) {
    await writeFile(
      join(bin, name),
      `#!/bin/bash\nprintf '%s\\n' "${name} $*" >> "$RAN_LOG"\nexec /usr/bin/env -i PATH=/usr/bin:/bin ${name} "$@"\n`,
    );
    await chmod(join(bin, name), 0o755);
  }
  shimPath = `${bin}:${process.env.PATH}`;
  await writeFile(join(dir, '--version'), 'a file named --version\n');
  await writeFile(join(dir, 'lines.txt'), Array.from({ length: 8 }, (_, k) => `line ${k + 1}\n`).join(''));
});

const run = (template: string, args: Record<string, unknown>) =>
  resolveEntrypoint(`bash:${template}`, { skillDir: dir }).run(args, {
    env: { PATH: shimPath, RAN_LOG: ranLog() },
  });

async function refusal(promise: Promise<unknown>): Promise<EntrypointError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EntrypointError);
  expect((error as EntrypointError).code).toBe('bad-argument');
  return error as EntrypointError;
}

describe('bash: values that a command would read as options', () => {
  it('refuses cat {path} with --version, and cat never runs', async () => {
    const error = await refusal(run('cat {path}', { path: '--version' }));
    expect(error.message).toBe(
      'argument "path" is "--version", which starts with "-", so cat would read it as an option; nothing was run. If it names a file, pass it as "./--version" (a template can accept such values by putting -- before {path})',
    );
    expect(existsSync(ranLog())).toBe(false);
    // the suggested spelling reads the file
    expect((await run('cat {path}', { path: './--version' })).output).toBe('a file named --version\n');
    expect(await readFile(ranLog(), 'utf8')).toBe('cat ./--version\n');
  });

  it('refuses ls -la {path} with --help and rm {path} with -rf before starting anything', async () => {
    await writeFile(ranLog(), '');
    await refusal(run('ls -la {path}', { path: '--help' }));
    await refusal(run('touch started; rm {path}', { path: '-rf' }));
    await refusal(run('cat {path}', { path: '-' }));
    expect(await readFile(ranLog(), 'utf8')).toBe('');
    expect(existsSync(join(dir, 'started'))).toBe(false);
  });

  // Reported: `find {dir} -name {pat}` refused the pattern "-delete" (and "("), which find reads as the name to look
  // for, with advice (./{pat}) that would make -name never match.
  it('lets find read a value after -name as the name, whatever it starts with', async () => {
    await writeFile(join(dir, '-delete'), 'a file named -delete\n');
    expect((await run('find {dir} -name {pat}', { dir: '.', pat: '-delete' })).output).toBe('./-delete\n');
    expect(existsSync(join(dir, 'lines.txt'))).toBe(true);
    expect((await run('find {dir} -maxdepth 1 -name {pat}', { dir: '.', pat: '(' })).output).toBe('');
    await refusal(run('find {dir} -name {pat}', { dir: '-delete', pat: 'x' }));
  });

  it('refuses find -- {dir} with -true: find reads a starting point "-…" as its expression even after --', async () => {
    await refusal(run('find -- {dir} -maxdepth 0', { dir: '-true' }));
    expect((await run('find -- {dir} -maxdepth 0', { dir: 'lines.txt' })).output).toBe('lines.txt\n');
  });

  it('reads a file named --version with cat -- {path}', async () => {
    expect((await run('cat -- {path}', { path: '--version' })).output).toBe('a file named --version\n');
  });

  it('passes a negative number to head -n {n}, but not the string "-5" as a file', async () => {
    const result = await run('head -n {n} {file}', { n: -5, file: 'lines.txt' });
    expect(result.output).toBe('line 1\nline 2\nline 3\n');
    await refusal(run('head -n {n} {file}', { n: 2, file: '-5' }));
  });

  it('lets echo print leading-dash text, refusing only its own options -n, -e, -E', async () => {
    const write = (content: string) =>
      run('echo "{content}" > {path}; cat -- {path}', { content, path: 'out.md' });
    expect((await write('- item\n- item')).output).toBe('- item\n- item\n');
    expect((await write('---\ntitle: x\n---')).output).toBe('---\ntitle: x\n---\n');
    expect((await write('--help')).output).toBe('--help\n');
    const error = await refusal(write('-n'));
    expect(error.message).toMatch(
      /^argument "content" is "-n", which echo would take as an option and not print/,
    );
    // /bin/echo (through env) does read --help, so the broad rule applies there
    await refusal(run('env echo {content}', { content: '--help' }));
  });

  it("passes a leading-dash value that the tool's schema lists, so authors can offer flags", async () => {
    const schema = { type: 'object', properties: { flags: { enum: ['-1', '-a1'] }, path: {} } };
    const ep = resolveEntrypoint('bash:ls {flags} -- {path}', { skillDir: dir, schema });
    expect((await ep.run({ flags: '-1', path: 'lines.txt' })).output).toBe('lines.txt\n');
    await expect(ep.run({ flags: '-R', path: '.' })).rejects.toMatchObject({ code: 'bad-argument' });
  });

  it('leaves redirection targets, glued words and raw {command} alone', async () => {
    const result = await run('echo hi > {path}; cat ./{path}; cat <<< {s}', { path: '-n', s: '--x' });
    expect(result.output).toBe('hi\n--x\n');
    expect(await readFile(join(dir, '-n'), 'utf8')).toBe('hi\n');
    const raw = await run('{command}', { command: '--version 2>/dev/null; echo raw' });
    expect(raw.output).toBe('raw\n');
  });
});
