import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sandboxStatus } from '@birdie/entrypoints';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

/** Real bubblewrap or a failure that says how to get it: a sandbox never tested must not pass as tested. */
async function requireBubblewrap(): Promise<void> {
  const status = await sandboxStatus();
  if (!status.available) {
    throw new Error(
      `these tests need a working bubblewrap: ${status.reason}. (run "sh scripts/system-packages.sh", as README command 1 and CI do)`,
    );
  }
}

let box: Sandbox;
let outside: string;
beforeAll(async () => {
  // Outside /tmp (which the sandbox replaces with its own): there the read-only root is what stops a write.
  outside = await mkdtemp('/var/tmp/birdie-cli-sandbox-');
});
afterAll(() => rm(outside, { recursive: true, force: true }));
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });
const runBash = (command: string, ...flags: string[]) =>
  cli(['tool', 'run_bash', ...flags, '--args', JSON.stringify({ command })]);

describe('the sandbox from the command line', { timeout: 60_000 }, () => {
  it('birdie tool run_bash --sandbox: writes in the working directory only, and says it runs sandboxed', async () => {
    await requireBubblewrap();
    const target = join(outside, 'flag.txt');
    const confined = await runBash(`echo in > in.txt && echo out > ${target}`, '--sandbox');
    expect(confined.code).toBe(1);
    expect(confined.stderr).toContain(
      `birdie: run_bash runs in the sandbox (bubblewrap): writes only in ${box.cwd} and a private /tmp, no network`,
    );
    expect(confined.stderr).toContain('Read-only file system');
    expect(await readFile(join(box.cwd, 'in.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(target)).toBe(false);

    // the control: the same command without the sandbox
    const open = await runBash(`echo out > ${target}`);
    expect(open).toMatchObject({ code: 0 });
    expect(open.stderr).not.toContain('sandbox');
    expect(await readFile(target, 'utf8')).toBe('out\n');
  });

  it('settings.sandbox: always in the config does the same for every bash:/python: tool', async () => {
    await requireBubblewrap();
    await writeFile(join(box.home, 'config.json'), JSON.stringify({ settings: { sandbox: 'always' } }));
    const target = join(outside, 'always.txt');
    const confined = await runBash(`echo out > ${target}`);
    expect(confined.code).toBe(1);
    expect(confined.stderr).toContain('birdie: run_bash runs in the sandbox (bubblewrap)');
    expect(existsSync(target)).toBe(false);
  });

  it('sandbox and container_runtime are checked settings; --sandbox is in the help', async () => {
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ settings: { sandbox: 'sometimes' } }, null, 2),
    );
    const bad = await runBash('true');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('settings.sandbox must be declared or always');
    await writeFile(
      join(box.home, 'config.json'),
      JSON.stringify({ settings: { container_runtime: 'lxc' } }),
    );
    expect((await runBash('true')).stderr).toContain(
      'settings.container_runtime must be auto, podman or docker',
    );
    for (const command of [['run', '--help'], ['tool', '--help'], ['serve', '--help'], ['--help']]) {
      expect((await cli(command)).stdout, command.join(' ')).toContain('--sandbox');
    }
  });
});
