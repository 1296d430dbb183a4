import { cp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { makeToken } from './helpers/serve.js';

// Reported: `npm install -g birdie` over a running `birdie serve` (an upgrade: every file of dist/ replaced, under new
// names), then SIGTERM: the server stopped, then printed "unexpected error: Error [ERR_MODULE_NOT_FOUND]" and a stack
// trace, and exited 1. Stopping must not need a file it did not load at start; a file that is gone is said plainly.

let box: Sandbox | undefined;
// A copy of the built CLI inside the package, so that it finds the same dependencies (ignored by git and Biome).
const copy = join(CLI_ROOT, `.install-replaced-${process.pid}`);

beforeAll(async () => {
  // Copies a killed run left behind go first.
  for (const name of await readdir(CLI_ROOT))
    if (name.startsWith('.install-replaced-'))
      await rm(join(CLI_ROOT, name), { recursive: true, force: true });
  box = await sandbox();
});

afterAll(async () => {
  await rm(copy, { recursive: true, force: true });
  await box?.cleanup();
});

/** A fresh copy of the built CLI, without the chunks whose names start with one of `gone`; its bin.js. */
async function install(...gone: string[]): Promise<string> {
  await rm(copy, { recursive: true, force: true });
  await cp(join(CLI_ROOT, 'dist'), copy, { recursive: true });
  for (const name of await readdir(copy))
    if (gone.some((g) => name.startsWith(g))) await rm(join(copy, name));
  return join(copy, 'bin.js');
}

/** What an upgrade leaves of the running version: none of its JavaScript files. */
async function replaceInstall(): Promise<void> {
  for (const name of await readdir(copy)) if (name.endsWith('.js')) await rm(join(copy, name));
}

describe('birdie whose installed files are replaced while it runs', { timeout: 120_000 }, () => {
  it('serve stops on SIGTERM as usual: exit 0, no stack trace', async () => {
    const { env: boxEnv, cwd } = box!;
    await makeToken('alice', { env: boxEnv, cwd });
    const env = { ...boxEnv, LLM_VENDOR: 'scripted', LLM_SCRIPT: join(CLI_ROOT, 'examples', 'hello.json') };
    const server = startBirdie(['serve', '--port', '0'], { env, cwd, bin: await install() });
    await server.waitFor('stdout', /listening on/);
    await replaceInstall();
    server.kill('SIGTERM');
    const { code, stderr } = await server.exited;
    expect(stderr).toContain('stopped (0 turn(s) finished, 0 cancelled)');
    expect(stderr).not.toMatch(/unexpected error|\n\s+at /);
    expect(code).toBe(0);
  });

  it('a part it needs later that is gone is said plainly: which file, that birdie changed, what to do', async () => {
    const { env, cwd } = box!;
    // `birdie --help` loads its help text only when asked; here the file is gone before it is.
    const { code, stdout, stderr } = await birdie(['--help'], { env, cwd, bin: await install('help-') });
    expect(stderr).toMatch(
      /^birdie: its installed files changed while it ran \(upgraded or reinstalled\?\): help-[\w-]+\.js is gone; run the command again\n$/,
    );
    expect(stdout).toBe('');
    expect(code).toBe(1);
  });

  it('with --json, that is one JSON object on stdout too', async () => {
    const { env, cwd } = box!;
    const { code, stdout } = await birdie(['skills', 'list', '--json'], {
      env,
      cwd,
      bin: await install('skills-list-'),
    });
    expect(JSON.parse(stdout)).toEqual({
      ok: false,
      error: {
        code: 'install-changed',
        message: expect.stringMatching(/^its installed files changed .* skills-list-/),
      },
    });
    expect(code).toBe(1);
  });

  it('a failure whose report needs a part that is gone is still said in its own words, with its exit code', async () => {
    const { env, cwd } = box!;
    const bin = await install('store-failure-');
    const { code, stderr } = await birdie(['run', '--no-such-option', 'hi'], { env, cwd, bin });
    const lines = stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^birdie: .*--no-such-option/);
    expect(lines[1]).toMatch(
      /^birdie: its installed files changed while it ran .*store-failure-[\w-]+\.js is gone/,
    );
    expect(lines).toHaveLength(2);
    expect(code).toBe(2);
  });
});
