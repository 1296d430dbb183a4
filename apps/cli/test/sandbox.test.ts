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
  // Outside /tmp (which the sandbox replaces with its own): not shown in the sandbox either.
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
    expect(confined.stderr).toContain(`${target}: No such file or directory`);
    expect(await readFile(join(box.cwd, 'in.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(target)).toBe(false);

    // the control: the same command without the sandbox
    const open = await runBash(`echo out > ${target}`);
    expect(open).toMatchObject({ code: 0 });
    expect(open.stderr).not.toContain('sandbox');
    expect(await readFile(target, 'utf8')).toBe('out\n');
  });

  it('--config FILE: the file birdie read is hidden from the tool, in the project folder or outside it', async () => {
    await requireBubblewrap();
    const config = JSON.stringify({ provider: { vendor: 'openai', api_key: 'sk-config-secret-000' } });
    const inProject = join(box.cwd, 'team.json');
    const elsewhere = join(outside, 'team.json');
    await writeFile(inProject, config);
    await writeFile(elsewhere, config);
    for (const file of [inProject, elsewhere]) {
      // the control: without the sandbox the tool reads it
      const open = await runBash(`cat ${file}`, '--config', file);
      expect(open).toMatchObject({ code: 0, stdout: expect.stringContaining('sk-config-secret-000') });
      const confined = await runBash(`cat ${file}; echo done`, '--sandbox', '--config', file);
      expect(confined.stdout + confined.stderr).not.toContain('sk-config-secret-000');
      expect(confined.stdout).toContain('done');
    }
  });

  it('git commit in the sandbox fails, and says why and what the user does instead; git works outside', async () => {
    await requireBubblewrap();
    const git = 'git -c user.name=t -c user.email=t@example.com';
    expect(
      await runBash(`git init -q && echo a > a.txt && git add a.txt && ${git} commit -qm one`),
    ).toMatchObject({
      code: 0,
    });
    const confined = await runBash(`echo b > a.txt && ${git} commit -qam two`, '--sandbox');
    expect(confined.code).toBe(1);
    expect(confined.stderr).toContain('Read-only file system');
    expect(confined.stderr).toContain('ask the user to run them outside the sandbox');
    expect(await runBash(`${git} commit -qam two && git log --oneline | wc -l`)).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('2'),
    });
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
