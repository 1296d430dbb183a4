import { cp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { birdie, startBirdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { makeToken } from './helpers/serve.js';

// Reported: `npm install -g birdie` over a running `birdie serve` (an upgrade: every file of dist/ replaced, under new
// names), then SIGTERM: the server stopped, then printed "unexpected error: Error [ERR_MODULE_NOT_FOUND]" and a stack
// trace, and exited 1. Stopping must not need a file it did not load at start; a file that is gone is said plainly.

let box: Sandbox;
let copy: string;

beforeAll(async () => {
  box = await sandbox();
  // A copy of the built CLI inside the package, so that it finds the same dependencies.
  copy = join(CLI_ROOT, `.install-replaced-${process.pid}`);
  await cp(join(CLI_ROOT, 'dist'), copy, { recursive: true });
});

afterAll(async () => {
  await rm(copy, { recursive: true, force: true });
  await box?.cleanup();
});

/** What an upgrade leaves of the running version: none of its JavaScript files. */
async function replaceInstall(): Promise<void> {
  for (const name of await readdir(copy)) if (name.endsWith('.js')) await rm(join(copy, name));
}

describe('birdie whose installed files are replaced while it runs', { timeout: 120_000 }, () => {
  it('serve stops on SIGTERM as usual: exit 0, no stack trace', async () => {
    await makeToken('alice', { env: box.env, cwd: box.cwd });
    const env = { ...box.env, LLM_VENDOR: 'scripted', LLM_SCRIPT: join(CLI_ROOT, 'examples', 'hello.json') };
    const server = startBirdie(['serve', '--port', '0'], { env, cwd: box.cwd, bin: join(copy, 'bin.js') });
    await server.waitFor('stdout', /listening on/);
    await replaceInstall();
    server.kill('SIGTERM');
    const { code, stderr } = await server.exited;
    expect(stderr).toContain('stopped (0 turn(s) finished, 0 cancelled)');
    expect(stderr).not.toMatch(/unexpected error|\n\s+at /);
    expect(code).toBe(0);
  });

  it('a part it needs later that is gone is said plainly: which file, that birdie changed, what to do', async () => {
    await cp(join(CLI_ROOT, 'dist'), copy, { recursive: true });
    // `birdie --help` loads its help text only when asked; here the file is gone before it is.
    for (const name of await readdir(copy)) if (name.startsWith('help-')) await rm(join(copy, name));
    const { code, stderr } = await birdie(['--help'], {
      env: box.env,
      cwd: box.cwd,
      bin: join(copy, 'bin.js'),
    });
    expect(stderr).toMatch(
      /^birdie: its installed files changed while it ran \(upgraded or reinstalled\?\): help-[\w-]+\.js is gone; run the command again\n$/,
    );
    expect(code).toBe(1);
  });
});
