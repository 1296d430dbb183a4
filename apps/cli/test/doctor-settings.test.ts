import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox, scripted } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

// `birdie doctor` checks what every run needs from the settings, resolving them as a run does: a run that fails on
// them (exit 2) is never "No problems found".
describe('birdie doctor and the settings', () => {
  it('a model setting naming a tier no provider section defines: every run fails, and doctor says so with the fix', async () => {
    expect(await cli(['config', 'set', 'model', 'strong'])).toMatchObject({ code: 0 });
    const run = await cli(['run', 'count one two three']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('No model tier "strong"');
    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      `model: no provider section defines the model tier "strong": runs fail until one does, e.g. "models": { "strong": { "model": "…" } } in the provider section of ${join(box.home, 'config.json')}; or \`birdie config unset model\``,
    );
    expect(doctor.stdout).toContain('Problems found.');
    const json = await cli(['doctor', '--json']);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout);
    expect(report.ok).toBe(false);
    expect(report.settings).toContainEqual(
      expect.objectContaining({
        check: 'model',
        severity: 'error',
        message: expect.stringContaining('"strong"'),
      }),
    );
  });

  it('a model setting naming a vendor birdie does not know (hand-written): doctor names it with the fix', async () => {
    await writeFile(join(box.home, 'config.json'), JSON.stringify({ settings: { model: 'nosuch:model' } }));
    const run = await cli(['run', 'count one two three']);
    expect(run.code).toBe(2);
    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      `model: Invalid config in file ${join(box.home, 'config.json')} at line 1, column 14: settings.model names the vendor "nosuch", which birdie does not know`,
    );
    expect(doctor.stdout).toContain(
      '`birdie config set model VALUE` or `birdie config unset model` fixes it',
    );
    expect(doctor.stdout).toContain('Problems found.');
  });

  it('a project settings file that cannot be read (a folder in its place) is reported, as the run refuses it', async () => {
    await mkdir(join(box.cwd, '.birdie', 'settings.json'), { recursive: true });
    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      `project settings: cannot read the project's approval rules in ${join(box.cwd, '.birdie', 'settings.json')} (it is a folder, not a file)`,
    );
    expect(doctor.stdout).toContain('Problems found.');
  });

  it('a user config file that cannot be read (a folder in its place): every run fails, and doctor says so', async () => {
    const file = join(box.home, 'config.json');
    await mkdir(file);
    expect((await cli(['run', 'count one two three'])).code).toBe(2);
    const doctor = await cli(['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(`config: Cannot read config file ${file} (EISDIR)`);
  });

  it('settings a run can use: the model it resolves to, and no problems', async () => {
    expect(await cli(['config', 'set', 'model', 'default'])).toMatchObject({ code: 0 });
    expect((await cli(['run', 'count one two three'])).code).toBe(0);
    const doctor = await cli(['doctor']);
    expect(doctor.stdout).toMatch(/^model: default → scripted:\S+$/m);
    expect(doctor.stdout).toContain('No problems found.');
    expect(doctor.code).toBe(0);
  });
});
