import { execFileSync } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configureProcessGuard,
  EntrypointError,
  processGuardStatus,
  type RunOptions,
  resolveEntrypoint,
} from '../src/index.js';
import { tempDir } from './helpers.js';

// The interpreter itself, not a version manager's shim script (which would add PWD on its own).
const realPython = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], {
  encoding: 'utf8',
}).trim();
process.env.PATH = `${dirname(realPython)}${delimiter}${process.env.PATH ?? ''}`;

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
  await writeFile(
    join(dir, 'tools.py'),
    `import os, sys
def environment():
    return dict(os.environ)
def echo(text):
    return {"text": text, "cwd": os.getcwd()}
`,
  );
});
afterAll(() => configureProcessGuard(undefined));

type Outcome =
  | { ok: true; output: string; exitCode?: number; truncated: boolean }
  | { ok: false; code: string; message: string; exitCode?: number; output?: string };

async function outcome(
  entrypoint: string,
  args: Record<string, unknown> = {},
  options: RunOptions = {},
  skillDir = dir,
): Promise<Outcome> {
  try {
    const result = await resolveEntrypoint(entrypoint, { skillDir }).run(args, options);
    return { ok: true, ...result };
  } catch (error) {
    if (!(error instanceof EntrypointError)) throw error;
    return {
      ok: false,
      code: error.code,
      message: error.message,
      ...(error.exitCode === undefined ? {} : { exitCode: error.exitCode }),
      ...(error.output === undefined ? {} : { output: error.output }),
    };
  }
}

/** The same call without the guard and with it: what the caller sees must not differ. */
async function both(call: () => Promise<Outcome>): Promise<[Outcome, Outcome]> {
  configureProcessGuard('off');
  const plain = await call();
  configureProcessGuard('auto');
  const guarded = await call();
  return [plain, guarded];
}

describe('the process guard is invisible to a call', { timeout: 60_000 }, () => {
  it('is in use here (on Linux with perl)', async () => {
    configureProcessGuard('auto');
    const status = await processGuardStatus();
    if (process.platform === 'linux') expect(status).toEqual({ mode: 'auto', active: true });
    else expect(status).toMatchObject({ active: false, reason: expect.any(String) });
  });

  it('same output, exit code, working directory and environment (bash)', async () => {
    const [plain, guarded] = await both(() =>
      outcome('bash:pwd; env | sort; echo "args: $#"', {}, { env: { SKILL_SETTING: 'on' } }),
    );
    expect(plain).toMatchObject({ ok: true, exitCode: 0 });
    expect(guarded).toEqual(plain);
  });

  it('PERL* variables reach the child as given (the helper itself runs without them)', async () => {
    const env = { PERL5OPT: '-Mstrict', PERL5LIB: '/nowhere', PERL_BADLANG: 'kept' };
    const [plain, guarded] = await both(() => outcome('bash:env | grep ^PERL | sort', {}, { env }));
    expect(plain).toMatchObject({
      ok: true,
      output: 'PERL5LIB=/nowhere\nPERL5OPT=-Mstrict\nPERL_BADLANG=kept\n',
    });
    expect(guarded).toEqual(plain);
  });

  it('same environment for python, with and without a PWD of the caller', async () => {
    // (the wrapper's sh may list the variables in another order; the set and the values are the same)
    const environment = (result: Outcome) => JSON.parse((result as { output: string }).output);
    const [plain, guarded] = await both(() => outcome('python:tools.environment'));
    expect(environment(guarded)).toEqual(environment(plain));
    expect(environment(plain)).not.toHaveProperty('PWD');
    const [plainPwd, guardedPwd] = await both(() =>
      outcome('python:tools.environment', {}, { env: { PWD: '/somewhere/else' } }),
    );
    expect(environment(guardedPwd)).toEqual(environment(plainPwd));
    expect(environment(plainPwd).PWD).toBe('/somewhere/else');
  });

  it('same stdin (python gets its JSON arguments) and cwd option', async () => {
    const [plain, guarded] = await both(() => outcome('python:tools.echo', { text: 'hé "x"' }, { cwd: '/' }));
    expect(plain).toMatchObject({ ok: true });
    expect(guarded).toEqual(plain);
    const [cat, catGuarded] = await both(() => outcome('bash:cat; echo "eof"'));
    expect(catGuarded).toEqual(cat);
  });

  it('same non-zero exit, stderr tail and exit code', async () => {
    const [plain, guarded] = await both(() =>
      outcome('bash:echo out; echo "bad: {x}" >&2; exit 7', { x: 1 }),
    );
    expect(plain).toMatchObject({ ok: false, code: 'non-zero-exit', exitCode: 7 });
    expect(guarded).toEqual(plain);
  });

  it('same report when the command is killed by a signal, its own or from outside', async () => {
    for (const template of [
      'bash:kill -9 $$',
      'bash:kill -TERM $$',
      "bash:sh -c 'kill -HUP $PPID'; sleep 5",
    ]) {
      const [plain, guarded] = await both(() => outcome(template));
      expect(plain).toMatchObject({ ok: false, code: 'non-zero-exit' });
      expect(plain).not.toHaveProperty('exitCode');
      expect(guarded).toEqual(plain);
    }
  });

  it('$$ is the pid its parent sees, as without the guard', async () => {
    for (const mode of ['off', 'auto'] as const) {
      configureProcessGuard(mode);
      // (`:` last, so that bash forks cut instead of becoming it)
      const out = await outcome("bash:echo $$; cut -d' ' -f4 /proc/self/stat; :");
      const [self, parentOfCut] = (out as { output: string }).output.trim().split('\n');
      expect(parentOfCut).toBe(self);
    }
  });

  it('same timeout, abort and output cap', async () => {
    const [plain, guarded] = await both(() =>
      outcome('bash:echo before; sleep 30', {}, { timeoutMs: 300, killGraceMs: 200 }),
    );
    expect(plain).toMatchObject({ ok: false, code: 'timeout', output: 'before\n' });
    expect(guarded).toEqual(plain);
    const [plainAbort, guardedAbort] = await both(() =>
      outcome('bash:echo before; sleep 30', {}, { signal: AbortSignal.timeout(300), killGraceMs: 200 }),
    );
    expect(plainAbort).toMatchObject({ ok: false, code: 'aborted' });
    expect(guardedAbort).toEqual(plainAbort);
    const [plainCap, guardedCap] = await both(() =>
      outcome('bash:seq 1 100000', {}, { maxOutputBytes: 1_000 }),
    );
    expect(plainCap).toMatchObject({ ok: true, truncated: true });
    expect(guardedCap).toEqual(plainCap);
  });

  it('same spawn failures: program missing from PATH, missing working directory, python3 missing', async () => {
    const cases = [
      () => outcome('bash:true', {}, { env: { PATH: dir } }),
      () => outcome('bash:true', {}, {}, join(dir, 'missing')),
      () => outcome('python:tools.echo', { text: 'x' }, { env: { PATH: dir } }),
    ];
    for (const call of cases) {
      const [plain, guarded] = await both(call);
      expect(plain).toMatchObject({ ok: false });
      expect(guarded).toEqual(plain);
    }
    const [missing] = await both(cases[0]!);
    expect(missing).toMatchObject({
      code: 'spawn-failed',
      message: 'could not start bash: not found (not a file, and not on PATH)',
    });
  });

  it('a program on PATH that is not executable fails the same way', async () => {
    const bin = await tempDir();
    await writeFile(join(bin, 'bash'), '#!/bin/sh\necho never\n');
    await chmod(bin, 0o755);
    const [plain, guarded] = await both(() => outcome('bash:true', {}, { env: { PATH: bin } }));
    expect(plain).toMatchObject({ ok: false, code: 'spawn-failed' });
    expect(guarded).toEqual(plain);
  });
});
