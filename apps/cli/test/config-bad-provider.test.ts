import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { birdie } from './helpers/birdie-process.js';
import { type Sandbox, sandbox } from './helpers/env.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (args: string[]) => birdie(args, { env: box.env, cwd: box.cwd, timeoutMs: 60_000 });
const configFile = () => join(box.home, 'config.json');
const BAD_PROVIDER =
  '{\n  "provider": {\n    "vendor": "nosuch"\n  },\n  "settings": {\n    "approval": "never"\n  }\n}\n';

describe('birdie config with a bad provider section in the file', () => {
  it('list still lists the settings, and says the provider problem with its file, line and column: exit 2', async () => {
    await writeFile(configFile(), BAD_PROVIDER);
    const list = await cli(['config', 'list']);
    expect(list.stdout).toMatch(new RegExp(`approval\\s+never\\s+file ${configFile()}`));
    expect(list.stdout).toMatch(/titles\s+\S+\s+default/);
    expect(list.stderr).toBe(
      `birdie: Unknown vendor "nosuch" in file ${configFile()} at line 3, column 5; use one of: openai, azure, anthropic, mistral, gemini, ollama, scripted, acp, langchain; run \`birdie setup\` to set it again\n`,
    );
    expect(list.code).toBe(2);

    const get = await cli(['config', 'get', 'approval']);
    expect(get).toMatchObject({ code: 2, stdout: 'never\n' });
    expect(get.stderr).toContain('Unknown vendor "nosuch"');
  });

  it('an unknown section is said the same way, the settings still listed', async () => {
    await writeFile(configFile(), '{\n  "providr": {},\n  "settings": { "approval": "never" }\n}\n');
    const list = await cli(['config', 'list']);
    expect(list.stdout).toMatch(new RegExp(`approval\\s+never\\s+file ${configFile()}`));
    expect(list.stderr).toContain(
      `birdie: Invalid config in file ${configFile()} at line 2, column 3: unknown section "providr"`,
    );
    expect(list.code).toBe(2);
  });

  it('set, add and unset are refused with that problem, the file unchanged: `birdie setup` repairs the provider first', async () => {
    await writeFile(configFile(), BAD_PROVIDER);
    for (const args of [
      ['config', 'set', 'titles', 'model'],
      ['config', 'add', 'permissions.deny', 'run_bash(rm *)'],
      ['config', 'unset', 'approval'],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain('Unknown vendor "nosuch"');
    }
    expect(await readFile(configFile(), 'utf8')).toBe(BAD_PROVIDER);
  });
});

// Reported by an exploratory run (stop 68): `--config ""` was taken as the current folder, and the error blamed it.
describe('--config with an empty value', () => {
  it.each([
    [['run', '--config', '', 'hi']],
    [['config', 'list', '--config', '']],
    [['run', '--config', '  ', 'hi']],
  ])('birdie %j says the flag is empty: exit 2', async (args) => {
    const result = await cli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('birdie: --config needs a file, and was given an empty value\n');
  });
});
