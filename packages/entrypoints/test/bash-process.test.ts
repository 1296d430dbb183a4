import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EntrypointError, resolveEntrypoint } from '../src/index.js';
import { isAlive, livingInGroup, sleepMs, tempDir } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});

async function failure(promise: Promise<unknown>): Promise<EntrypointError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EntrypointError);
  return error as EntrypointError;
}

/** The script writes "$$ $!" (group leader and background child) to {ids} before it blocks. */
async function ids(file: string): Promise<[number, number]> {
  for (let k = 0; k < 250; k++) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (/^\d+ \d+\n$/.test(text)) return text.trim().split(' ').map(Number) as [number, number];
    await sleepMs(20);
  }
  throw new Error('the script did not report its process ids');
}

describe('bash: processes', () => {
  it('returns output, exit code 0 and the skill folder as working directory', async () => {
    const ep = resolveEntrypoint('bash:pwd; echo {a} {b} {c} {d}', { skillDir: dir });
    const result = await ep.run({ a: 'x', b: 42, c: true, d: { k: [1, 2] } });
    expect(result).toEqual({ output: `${dir}\nx 42 true {"k":[1,2]}\n`, exitCode: 0, truncated: false });
  });

  it('fills missing arguments from the schema default, else fails with missing-argument', async () => {
    const schema = {
      type: 'object',
      properties: { path: { type: 'string', default: '.' }, n: { type: 'integer' } },
    };
    const ep = resolveEntrypoint('bash:printf "%s|" {path} {n}', { skillDir: dir, schema });
    expect((await ep.run({ n: 3 })).output).toBe('.|3|');
    expect((await ep.run({ n: 3, path: null })).output).toBe('.|3|');
    const error = await failure(ep.run({ path: 'x' }));
    expect(error.code).toBe('missing-argument');
    expect(error.message).toContain("'n'");
  });

  it('refuses NUL bytes and over-long values before starting anything', async () => {
    const ep = resolveEntrypoint('bash:touch {name}', { skillDir: dir });
    expect((await failure(ep.run({ name: 'a\0b' }))).code).toBe('bad-argument');
    expect((await failure(ep.run({ name: 'x'.repeat(200_000) }))).code).toBe('bad-argument');
  });

  it('runs a raw {command} template as a script and marks it raw', async () => {
    const ep = resolveEntrypoint('bash:{command}', { skillDir: dir });
    expect(ep.raw).toBe(true);
    expect(ep.placeholders).toEqual(['command']);
    expect((await ep.run({ command: 'echo $((6*7)) | tr 4 X' })).output).toBe('X2\n');
    expect(resolveEntrypoint('bash:echo {command}', { skillDir: dir }).raw).toBe(false);
  });

  it('reports a non-zero exit with its code; the output holds stderr, which the message does not repeat', async () => {
    const ep = resolveEntrypoint(
      'bash:echo partial; for i in $(seq 1 500); do echo "noise $i" >&2; done; echo "fatal: {what}" >&2; exit 3',
      { skillDir: dir },
    );
    const error = await failure(ep.run({ what: 'disk full' }));
    expect(error.code).toBe('non-zero-exit');
    expect(error.exitCode).toBe(3);
    expect(error.message).toBe('command exited with code 3');
    expect(error.output).toContain('partial');
    expect(error.output).toContain('noise 1\n');
    expect(error.output).toContain('fatal: disk full');
  });

  it('keeps the end of a long output, where the failing lines are, and still does not repeat them', async () => {
    const ep = resolveEntrypoint(
      'bash:head -c 5000 /dev/zero | tr "\\0" a; echo; for i in $(seq 1 300); do echo "noise $i" >&2; done; echo "fatal: {what}" >&2; exit 3',
      { skillDir: dir },
    );
    const error = await failure(ep.run({ what: 'disk full' }, { maxOutputBytes: 1000 }));
    expect(error.message).toBe('command exited with code 3');
    expect(error.output).toMatch(/output dropped/);
    expect(error.output?.trimEnd().endsWith('fatal: disk full')).toBe(true);
  });

  it('says there was no output at all rather than showing an empty block', async () => {
    const error = await failure(resolveEntrypoint('bash:exit 4', { skillDir: dir }).run({}));
    expect(error.message).toBe('command exited with code 4\n(no output)');
  });

  it('names the signal when the command is killed by one', async () => {
    const error = await failure(resolveEntrypoint('bash:kill -9 $$', { skillDir: dir }).run({}));
    expect(error.code).toBe('non-zero-exit');
    expect(error.message).toContain('SIGKILL');
  });

  it('kills the whole process group on timeout: `sleep 100 & wait` leaves no orphan', async () => {
    const file = join(dir, 'timeout.ids');
    const ep = resolveEntrypoint('bash:sleep 100 & echo "$$ $!" > {file}; wait', { skillDir: dir });
    const run = ep.run({ file }, { timeoutMs: 800, killGraceMs: 300 });
    const [leader, background] = await ids(file);
    expect(await isAlive(background)).toBe(true);
    const error = await failure(run);
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('timed out after 0.8 s');
    expect(await isAlive(background)).toBe(false);
    expect(await livingInGroup(leader)).toEqual([]);
  });

  it('follows SIGTERM with SIGKILL when the group ignores TERM', async () => {
    const file = join(dir, 'stubborn.ids');
    const ep = resolveEntrypoint('bash:trap \'\' TERM; sleep 100 & echo "$$ $!" > {file}; wait', {
      skillDir: dir,
    });
    const run = ep.run({ file }, { timeoutMs: 1_000, killGraceMs: 200 });
    const [leader] = await ids(file);
    expect((await failure(run)).code).toBe('timeout');
    expect(await livingInGroup(leader)).toEqual([]);
  });

  it('ends background processes the command left behind when it exits', async () => {
    const file = join(dir, 'left.ids');
    const ep = resolveEntrypoint('bash:sleep 100 & echo "$$ $!" > {file}; echo done', { skillDir: dir });
    const result = await ep.run({ file }, { killGraceMs: 300 });
    expect(result.output).toBe('done\n');
    const [leader, background] = await ids(file);
    expect(await isAlive(background)).toBe(false);
    expect(await livingInGroup(leader)).toEqual([]);
  });

  it('aborts mid-run through the signal and kills the group', async () => {
    const file = join(dir, 'abort.ids');
    const ep = resolveEntrypoint('bash:echo started; sleep 100 & echo "$$ $!" > {file}; wait', {
      skillDir: dir,
    });
    const controller = new AbortController();
    const run = ep.run({ file }, { signal: controller.signal, killGraceMs: 300 });
    const [leader] = await ids(file);
    controller.abort(new Error('user pressed Ctrl-C'));
    const error = await failure(run);
    expect(error.code).toBe('aborted');
    expect(error.message).toContain('user pressed Ctrl-C');
    expect(error.output).toBe('started\n');
    expect(await livingInGroup(leader)).toEqual([]);
  });

  it('does not start at all when the signal is already aborted', async () => {
    const marker = join(dir, 'never');
    const error = await failure(
      resolveEntrypoint('bash:touch {m}', { skillDir: dir }).run(
        { m: marker },
        { signal: AbortSignal.abort() },
      ),
    );
    expect(error.code).toBe('aborted');
    expect(await readFile(marker).catch(() => 'absent')).toBe('absent');
  });

  it('caps a flood of output, keeps head and tail, and counts the dropped bytes', async () => {
    const ep = resolveEntrypoint('bash:echo first; yes birdie | head -c 30000000; echo; echo last', {
      skillDir: dir,
    });
    const result = await ep.run({}, { maxOutputBytes: 10_000 });
    expect(result.truncated).toBe(true);
    expect(result.output.startsWith('first\nbirdie\n')).toBe(true);
    expect(result.output.endsWith('last\n')).toBe(true);
    const dropped = /\[… (\d+) bytes of output dropped …\]/.exec(result.output);
    expect(Number(dropped?.[1])).toBe(30_000_000 + 'first\n\nlast\n'.length - 10_000);
    expect(Buffer.byteLength(result.output)).toBeLessThan(10_100);
  });

  it('applies the default 100 KB cap', async () => {
    const result = await resolveEntrypoint('bash:head -c 300000 /dev/zero | tr "\\0" a', {
      skillDir: dir,
    }).run({});
    expect(result.truncated).toBe(true);
    expect(result.output.replace(/\n\[…[^\]]*\]\n/, '')).toBe('a'.repeat(100 * 1024));
  });

  it('passes only allowlisted host variables plus the caller env: no host secrets', async () => {
    process.env.BIRDIE_TEST_SECRET_API_KEY = 'canary-123';
    process.env.GITHUB_TOKEN_FOR_TEST = 'canary-456';
    try {
      const ep = resolveEntrypoint('bash:env', { skillDir: dir });
      const names = (await ep.run({}, { env: { SKILL_SETTING: 'on' } })).output
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(0, line.indexOf('=')));
      expect(names).not.toContain('BIRDIE_TEST_SECRET_API_KEY');
      expect(names).not.toContain('GITHUB_TOKEN_FOR_TEST');
      expect(names).toContain('SKILL_SETTING');
      expect(names).toContain('PATH');
      const allowed =
        /^(PATH|HOME|LANG|LANGUAGE|LC_(ALL|CTYPE|NUMERIC|TIME|COLLATE|MONETARY|MESSAGES|PAPER|NAME|ADDRESS|TELEPHONE|MEASUREMENT|IDENTIFICATION)|TERM|USER|TMPDIR|SKILL_SETTING|PWD|SHLVL|_)$/;
      expect(names.filter((name) => !allowed.test(name))).toEqual([]);
    } finally {
      delete process.env.BIRDIE_TEST_SECRET_API_KEY;
      delete process.env.GITHUB_TOKEN_FOR_TEST;
    }
  });

  it('closes stdin, so a command waiting for input ends at once', async () => {
    const result = await resolveEntrypoint('bash:cat; echo "eof"', { skillDir: dir }).run(
      {},
      { timeoutMs: 5_000 },
    );
    expect(result.output).toBe('eof\n');
  });

  it('reports spawn failures when bash is not on PATH', async () => {
    const error = await failure(
      resolveEntrypoint('bash:true', { skillDir: dir }).run({}, { env: { PATH: dir } }),
    );
    expect(error.code).toBe('spawn-failed');
    const badCwd = await failure(resolveEntrypoint('bash:true', { skillDir: join(dir, 'missing') }).run({}));
    expect(badCwd.code).toBe('spawn-failed');
    expect(badCwd.message).toContain('working directory');
    const badEnv = await failure(
      resolveEntrypoint('bash:true', { skillDir: dir }).run({}, { env: { X: 'a\0b' } }),
    );
    expect(badEnv.code).toBe('spawn-failed');
  });
});
