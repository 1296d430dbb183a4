import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, SCRIPTS, sandbox, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });
const provider = { vendor: 'scripted', script: join(SCRIPTS, 'count.json') };
const save = (config: unknown, name = join(box.home, 'config.json')) =>
  writeFile(name, typeof config === 'string' ? config : JSON.stringify(config, null, 2), { mode: 0o600 });
const touched = () =>
  stat(join(box.cwd, 'marker.txt')).then(
    () => true,
    () => false,
  );

describe('~/.birdie/config.json: provider and settings sections', () => {
  it("reads the first release's flat shape as the provider", async () => {
    await save(provider);
    const result = await cli(['run', 'hello', '--json']);
    expect(result.code).toBe(0);
    const session = JSON.parse(result.stdout.split('\n')[0]!);
    expect(session).toMatchObject({
      provider: 'scripted/scripted',
      sources: { vendor: `file ${join(box.home, 'config.json')}`, model: 'default' },
    });
  });

  it('settings.approval is the default mode; --approval overrides it', async () => {
    await save({ provider, settings: { approval: 'never' } });
    const asked = await cli(['run', 'touch it', '--skills-dir', TEST_SKILLS, '--approval', 'ask']);
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain('needs approval');
    expect(await touched()).toBe(false);

    const result = await cli(['run', 'touch it', '--skills-dir', TEST_SKILLS]);
    expect(result).toMatchObject({ code: 0, stdout: 'Finished.\n' });
    expect(await touched()).toBe(true);
  });

  it('a --config file ranks above the saved file, for settings as for the provider', async () => {
    await save({
      provider: { vendor: 'openai', api_key: 'sk-not-used-000000' },
      settings: { approval: 'never' },
    });
    const mine = join(box.cwd, 'mine.json');
    await save({ provider, settings: { approval: 'ask' } }, mine);
    const result = await cli(['run', 'touch it', '--skills-dir', TEST_SKILLS, '--config', mine]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('needs approval');
    expect(await touched()).toBe(false);
  });

  it('an unknown key is a usage error with the file, line and column', async () => {
    const file = join(box.home, 'config.json');
    await save(
      `{\n  "provider": ${JSON.stringify(provider)},\n  "settings": {\n    "aproval": "never"\n  }\n}\n`,
    );
    const setting = await cli(['run', 'hello']);
    expect(setting.code).toBe(2);
    expect(setting.stderr).toContain(
      `Invalid config in file ${file} at line 4, column 5: unknown setting "settings.aproval" (allowed: approval, database_url, skills, sandbox, container_runtime, context_window, context_messages, tool_budget, tool_budget_chars, titles, tool_output, memory_files, web_fetch_allow, model, permissions, serve, channels)`,
    );
    // A nested section names its own keys.
    await save({ provider, settings: { serve: { skill: ['todo'] } } });
    const nested = await cli(['run', 'hello']);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toContain(
      'unknown setting "settings.serve.skill" (allowed: skills, agents, workspaces, workspace, sandbox, limits)',
    );

    await save('{\n  "provider": {\n    "vendor": "scripted",\n    "scirpt": "x.json"\n  }\n}\n');
    const field = await cli(['run', 'hello']);
    expect(field.code).toBe(2);
    expect(field.stderr).toContain(
      `Invalid config in file ${file} at line 4, column 5: unknown field "provider.scirpt"`,
    );

    await save({ provider, settings: { skills: { enable: ['word-count'], disable: ['shell', 7] } } });
    const value = await cli(['run', 'hello']);
    expect(value.stderr).toContain(
      `Invalid config in file ${file} at line 13, column 9: settings.skills.disable.1 must be a skill name (a string)`,
    );
  });
});
