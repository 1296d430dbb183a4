import { execFile } from 'node:child_process';
import { chmod, lstat, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { asUnprivileged } from '@birdie/test-utils';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

const execFileAsync = promisify(execFile);

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
  await mkdir(join(box.cwd, '.birdie'));
});
afterEach(async () => {
  await chmod(join(box.cwd, '.birdie', 'settings.json'), 0o644).catch(() => undefined);
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });
const settingsFile = () => join(box.cwd, '.birdie', 'settings.json');

// A settings file that is there but cannot be read holds rules (deny rules) the project meant to apply: the run stops,
// as it does for one that is not JSON, instead of going on without them.
describe('a project settings file that exists but cannot be read', () => {
  it('as a malformed one, stops the run (exit 2) naming the file: here, a folder in its place', async () => {
    await mkdir(settingsFile());
    const run = await cli(['run', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `cannot read the project's approval rules in ${settingsFile()} (it is a folder, not a file)`,
    );
  });

  it('a file that is not JSON is refused the same way (unchanged)', async () => {
    await writeFile(settingsFile(), '{ "permissions": ');
    const run = await cli(['run', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`cannot read the project's approval rules in ${settingsFile()} (`);
  });

  it('a file birdie may not read (chmod 000) stops the run (run as nobody when the tests run as root)', async () => {
    await writeFile(settingsFile(), JSON.stringify({ permissions: { deny: ['run_command(rm *)'] } }));
    // The user the run is, when it is not root (root reads a chmod 000 file): everything else it may use.
    await execFileAsync('chmod', ['-R', 'a+rwX', box.dir.path]);
    await chmod(settingsFile(), 0);
    const run = await birdie(['run', 'hi'], { env: box.env, cwd: box.cwd, wrap: asUnprivileged() });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `cannot read the project's approval rules in ${settingsFile()} (permission denied (EACCES))`,
    );
  });

  // A link whose target is gone is not a missing file: the project (or the user's dotfiles) put settings there, and
  // running without their deny rules would run what they forbid.
  it('a symbolic link to a file that is gone stops the run, naming the link and its target', async () => {
    const target = join(box.dir.path, 'dotfiles', 'birdie-settings.json');
    await symlink(target, settingsFile());
    const run = await cli(['run', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `cannot read the project's approval rules in ${settingsFile()} (it is a symbolic link to ${target}, which does not exist)`,
    );
  });

  it('so does a .birdie folder that is a link to a folder that is gone', async () => {
    await rm(join(box.cwd, '.birdie'), { recursive: true });
    const target = join(box.dir.path, 'gone');
    await symlink(target, join(box.cwd, '.birdie'));
    const run = await cli(['run', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `(${join(box.cwd, '.birdie')} is a symbolic link to ${target}, which does not exist)`,
    );
  });

  it("the user's config file as a link to a file that is gone stops the run too, and every command that reads it", async () => {
    const config = join(box.home, 'config.json');
    const target = join(box.dir.path, 'dotfiles', 'birdie.json');
    await symlink(target, config);
    const why = `it is a symbolic link to ${target}, which does not exist`;
    const run = await cli(['run', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(config);
    expect(run.stderr).toContain(why);
    // `config list` showed every setting as its default; `config set` wrote a new file over the link.
    const list = await cli(['config', 'list']);
    expect(list.code).toBe(2);
    expect(list.stderr).toContain(why);
    const set = await cli(['config', 'set', 'approval', 'always']);
    expect(set.code).toBe(2);
    expect(set.stderr).toContain(why);
    expect((await lstat(config)).isSymbolicLink()).toBe(true);
  }, 180_000);

  // A named pipe there made every command wait for a writer for ever (not even SIGTERM ended it).
  it("the user's config file as a named pipe is refused at once, not waited on", async () => {
    const config = join(box.home, 'config.json');
    await execFileAsync('mkfifo', [config]);
    const run = await birdie(['run', 'hi'], { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });
    expect(run.signal, run.stderr).toBeNull();
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `Cannot read config file ${config} (it is not a regular file (a pipe, a socket or a device))`,
    );
    // `birdie config get` read it its own way, and waited the same.
    const get = await birdie(['config', 'get', 'model'], { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });
    expect(get.signal, get.stderr).toBeNull();
    expect(get.code).toBe(2);
    expect(get.stderr).toContain(`Cannot read config file ${config} (it is not a regular file`);
    // `birdie doctor` reports it and still checks the store. (Node's module resolution stops following symbolic links
    // when the last synchronous `stat` saw a pipe: a plain `stat` of this file made the store's SQLite module load from
    // the link's path and miss its own dependency, `cannot open …/birdie.db`.)
    const doctor = await birdie(['doctor'], { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });
    expect(doctor.signal, doctor.stderr).toBeNull();
    expect(doctor.code, doctor.stderr).toBe(1);
    expect(doctor.stdout).toContain(`config: Cannot read config file ${config} (it is not a regular file`);
    expect(doctor.stdout).toContain('integrity check: ok');
  }, 240_000);

  it('a missing one is no problem', async () => {
    const run = await cli(['run', 'hi']);
    expect(run.code, run.stderr).toBe(0);
  });
});
