import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  birdie(args, { env: { ...box.env, ...env }, cwd: box.cwd, timeoutMs: 60_000 });
const allowRules = async () =>
  JSON.parse(await readFile(join(box.home, 'config.json'), 'utf8')).settings.permissions.allow;

describe('an allow rule that names a raw shell tool without a command pattern (report item 11)', {
  timeout: 90_000,
}, () => {
  it('config add writes it, and warns that it allows no command, with a pattern to write instead', async () => {
    const bare = await cli(['config', 'add', 'permissions.allow', 'run_bash']);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toContain('permissions.allow: added run_bash');
    expect(bare.stderr).toBe(
      'birdie: setting permissions.allow: `run_bash` allows no command of `run_bash`, which runs raw shell commands: only a command pattern allows one, such as `run_bash(ls *)`\n',
    );
    const skill = await cli(['config', 'add', 'permissions.allow', 'shell:*']);
    expect(skill.code).toBe(0);
    expect(skill.stderr).toBe(
      'birdie: setting permissions.allow: `shell:*` allows no command of `run_bash`, which runs raw shell commands: only a command pattern allows one, such as `run_bash(ls *)`\n',
    );
    expect(await allowRules()).toEqual(['run_bash', 'shell:*']);

    // A command pattern, and a deny of the bare name (which does stop every call), are said nothing about.
    expect(await cli(['config', 'add', 'permissions.allow', 'run_bash(ls *)'])).toMatchObject({
      code: 0,
      stderr: '',
    });
    expect(await cli(['config', 'add', 'permissions.deny', 'run_bash'])).toMatchObject({
      code: 0,
      stderr: '',
    });
  });

  it("the refusal's ruleMiss says a raw command needs a command pattern, not that the rules do not match it", async () => {
    await cli(['config', 'add', 'permissions.allow', 'run_bash']);
    await cli(['config', 'add', 'permissions.allow', 'shell:*']);
    const script = join(box.dir.path, 'script.json');
    await writeFile(
      script,
      JSON.stringify({
        replies: [{ tool_calls: [{ name: 'run_bash', args: { command: 'ls' } }] }, { text: 'done' }],
      }),
    );
    const run = await cli(['run', '--enable', 'shell', '--json', 'go'], {
      LLM_VENDOR: 'scripted',
      LLM_SCRIPT: script,
    });
    const miss = /"ruleMiss":"([^"]*)"/.exec(run.stdout)?.[1];
    expect(miss).toMatch(
      /^the allow rules `run_bash` \(user [^)]*\), `shell:\*` \(user [^)]*\) name no command:/,
    );
    expect(miss).toContain('a raw command is allowed only by a command pattern such as `run_bash(ls *)`');
    expect(miss).not.toContain('do not match');
  });
});
