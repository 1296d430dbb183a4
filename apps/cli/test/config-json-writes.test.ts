import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

// Reported: `birdie config set|unset|add|remove … --json` accepted --json (the help lists it for `config`) and printed
// the same text line as without it, so a script parsing stdout as JSON failed. Each now prints one JSON object.

let box: Sandbox;

beforeEach(async () => {
  box = await sandbox();
});

afterEach(async () => {
  await box?.cleanup();
});

const cli = async (args: string[]) => {
  const result = await birdie(args, { env: box.env, cwd: box.cwd });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
};
const file = () => join(box.home, 'config.json');

describe('birdie config writes with --json', { timeout: 60_000 }, () => {
  it('set and unset print the key, the value now in force in the file, and the file', async () => {
    expect(await cli(['config', 'set', 'skills.enable', 'shell,filesystem', '--json'])).toEqual({
      action: 'set',
      key: 'skills.enable',
      value: ['shell', 'filesystem'],
      file: file(),
    });
    expect(await cli(['config', 'unset', 'skills.enable', '--json'])).toEqual({
      action: 'unset',
      key: 'skills.enable',
      value: null,
      file: file(),
    });
    expect(JSON.parse(await readFile(file(), 'utf8')).settings?.skills?.enable).toBeUndefined();
  });

  it('add and remove print the entry, whether the list changed, and the list now in the file', async () => {
    const rule = 'run_bash(git status *)';
    expect(await cli(['config', 'add', 'permissions.allow', rule, '--json'])).toEqual({
      action: 'add',
      key: 'permissions.allow',
      entry: rule,
      changed: true,
      value: [rule],
      file: file(),
    });
    expect(await cli(['config', 'add', 'permissions.allow', rule, '--json'])).toMatchObject({
      changed: false,
    });
    expect(await cli(['config', 'remove', 'permissions.allow', rule, '--json'])).toEqual({
      action: 'remove',
      key: 'permissions.allow',
      entry: rule,
      changed: true,
      value: [],
      file: file(),
    });
  });
});
