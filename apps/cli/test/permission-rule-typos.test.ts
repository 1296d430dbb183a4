import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { CLI_ROOT, type Sandbox, sandbox } from './helpers/env.js';

// Reported: `birdie config add permissions.deny 'run_bsh(git push *)'` said "added" and nothing else: the user believed
// `git push` was now refused, but a rule naming a tool no skill declares matches nothing. `skills.enable` already
// warns of a misspelt skill; a rule naming an unknown tool, skill or argument now warns alike (and is still written).

const BUNDLED = join(CLI_ROOT, '..', '..', 'skills');

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox({ BIRDIE_BUNDLED_SKILLS: BUNDLED });
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });
const rules = async () =>
  JSON.parse(await readFile(join(box.home, 'config.json'), 'utf8')).settings.permissions;

describe('an approval rule naming a tool, skill or argument no skill has', { timeout: 90_000 }, () => {
  it('is written, with a warning that it matches nothing and the closest name', async () => {
    const tool = await cli(['config', 'add', 'permissions.deny', 'run_bsh(git push *)']);
    expect(tool.code, tool.stderr).toBe(0);
    expect(tool.stderr).toBe(
      'birdie: setting permissions.deny: `run_bsh(git push *)` names the tool `run_bsh`, which no skill declares: it matches no call of the skills (an MCP server\'s tool of that name would still match). Did you mean "run_bash"?\n',
    );
    const skill = await cli(['config', 'add', 'permissions.deny', 'filesytem:*']);
    expect(skill.code).toBe(0);
    expect(skill.stderr).toBe(
      'birdie: setting permissions.deny: `filesytem:*` names the skill `filesytem`, which is not loaded: it matches nothing. Did you mean "filesystem"?\n',
    );
    const argument = await cli(['config', 'add', 'permissions.allow', 'read_file(pth=*.md)']);
    expect(argument.code).toBe(0);
    expect(argument.stderr).toMatch(
      /^birdie: setting permissions\.allow: `read_file\(pth=\*\.md\)` constrains the argument `pth`, which `read_file` does not take \(its arguments: path, .*\): it matches no call\. Did you mean "path"\?\n$/,
    );
    expect(await rules()).toEqual({
      deny: ['run_bsh(git push *)', 'filesytem:*'],
      allow: ['read_file(pth=*.md)'],
    });
  });

  it('rules naming what the skills have, builtin tools included, are said nothing about', async () => {
    for (const [key, pattern] of [
      ['permissions.deny', 'run_bash(git push *)'],
      ['permissions.deny', 'filesystem:*'],
      ['permissions.allow', 'read_file(path=*.md)'],
      ['permissions.ask', 'remember'],
      ['permissions.deny', 'filesystem:write_file'],
    ] as const)
      expect(await cli(['config', 'add', key, pattern]), pattern).toMatchObject({ code: 0, stderr: '' });
  });
});
