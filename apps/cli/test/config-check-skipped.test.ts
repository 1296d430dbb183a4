import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
  // A store that cannot be opened: the skills (which need its trust answers) cannot be loaded for the check.
  await writeFile(join(box.home, 'birdie.db'), 'garbage\n');
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });
const settings = async () => JSON.parse(await readFile(join(box.home, 'config.json'), 'utf8')).settings;

describe('config add|set when the skills to check the value against cannot be loaded', {
  timeout: 90_000,
}, () => {
  it('config add permissions.allow writes the rule, exits 0, and says the check was skipped and why', async () => {
    const add = await cli(['config', 'add', 'permissions.allow', 'run_bash']);
    expect(add.stdout).toContain('permissions.allow: added run_bash');
    expect(add.stderr).toMatch(
      /^birdie: setting permissions\.allow: `run_bash` was written but not checked against the skills \(they could not be loaded: .*birdie\.db is malformed/,
    );
    expect(add.code).toBe(0);
    expect((await settings()).permissions.allow).toEqual(['run_bash']);
  });

  it('config set skills.enable writes the names, exits 0, and says the check was skipped and why', async () => {
    const set = await cli(['config', 'set', 'skills.enable', 'shell, nosuchskill']);
    expect(set.stdout).toContain('skills.enable = shell, nosuchskill');
    expect(set.stderr).toMatch(
      /^birdie: setting skills\.enable: `shell, nosuchskill` was written but not checked against the skills \(they could not be loaded: .*birdie\.db is malformed/,
    );
    expect(set.code).toBe(0);
    expect((await settings()).skills.enable).toEqual(['shell', 'nosuchskill']);
  });
});
