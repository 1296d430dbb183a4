import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

// Reported: `birdie trust --list --revoke proj` listed and revoked nothing (exit 0): the user believed the folder was
// no longer trusted. `birdie trust other --revoke proj` ignored `other`, and `--json` without `--list` was ignored.
// Options that ask for two things are a usage error now, naming both.

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
  await mkdir(join(box.cwd, 'proj', '.birdie', 'agents'), { recursive: true });
  await writeFile(
    join(box.cwd, 'proj', '.birdie', 'agents', 'a.md'),
    '---\nname: a\ndescription: An agent.\n---\nYou help.\n',
  );
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => runCli(args, { env: box.env, cwd: box.cwd });

describe('birdie trust with options that ask for two things', () => {
  it('is refused with exit 2, and changes nothing', async () => {
    expect((await cli(['trust', 'proj'])).code).toBe(0);
    for (const [args, message] of [
      [['trust', '--list', '--revoke', 'proj'], '--list and --revoke'],
      [['trust', 'other', '--revoke', 'proj'], 'a folder to trust (other) and --revoke'],
      [['trust', '--list', 'proj'], '--list and a folder to trust (proj)'],
      [['trust', 'proj', '--json'], '--json goes with --list'],
    ] as const) {
      const result = await cli([...args]);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(message);
    }
    const list = await cli(['trust', '--list', '--json']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('"decision":"trusted"');
  });
});

// Reported by a daily user: `birdie trust list` (as `sessions list`, `tasks list`) said `/…/list is not a folder`.
describe('birdie trust with a subcommand word where a folder goes', () => {
  it('says which option does that, exit 2, and trusts nothing', async () => {
    for (const [word, option] of [
      ['list', 'birdie trust --list'],
      ['revoke', 'birdie trust --revoke DIR'],
    ] as const) {
      const result = await cli(['trust', word]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${word} is not a folder`);
      expect(result.stderr).toContain(option);
    }
    // A folder of that name is trusted as any other.
    await mkdir(join(box.cwd, 'list'));
    expect((await cli(['trust', 'list'])).stderr).not.toContain('birdie trust --list');
  });
});
