import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { styler } from '@birdie/terminal/style';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Io } from '../src/io.js';
import { bootRepl } from '../src/repl/boot.js';
import { type Sandbox, sandbox, scripted, TEST_SKILLS } from './helpers/env.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
beforeEach(async () => {
  box = await sandbox(scripted('count.json'));
});
afterEach(async () => {
  await box.cleanup();
});

const cli = (argv: string[]) => runCli(argv, { env: box.env, cwd: box.cwd });

describe('birdie config', () => {
  it('a subcommand given no setting name says which argument is missing and how the command is used', async () => {
    for (const [sub, usage] of [
      ['get', 'birdie config get KEY'],
      ['set', 'birdie config set KEY VALUE'],
      ['unset', 'birdie config unset KEY'],
      ['add', 'birdie config add KEY VALUE'],
      ['remove', 'birdie config remove KEY VALUE'],
    ] as const) {
      const result = await cli(['config', sub]);
      expect(result.code, sub).toBe(2);
      expect(result.stderr.trim(), sub).toBe(
        `birdie: missing setting. Usage: ${usage} (settings: birdie config list)`,
      );
    }
  });

  it('sets, gets, lists with sources and unsets settings, keeping the provider section; refuses bad values unwritten', async () => {
    const file = join(box.home, 'config.json');
    await writeFile(file, `${JSON.stringify({ provider: { vendor: 'scripted', script: 'x.json' } })}\n`);
    expect(await cli(['config', 'set', 'approval', 'never'])).toMatchObject({ code: 0 });
    expect(await cli(['config', 'set', 'skills.enable', 'shell, filesystem'])).toMatchObject({ code: 0 });
    expect((await cli(['config', 'get', 'approval'])).stdout).toBe('never\n');
    expect((await cli(['config', 'get', 'skills.enable', '--json'])).stdout).toBe('["shell","filesystem"]\n');
    const list = (await cli(['config', 'list'])).stdout;
    expect(list).toMatch(new RegExp(`approval\\s+never\\s+file ${file}`));
    expect(list).toMatch(/sandbox\s+declared\s+default/);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      provider: { vendor: 'scripted', script: 'x.json' },
      settings: { approval: 'never', skills: { enable: ['shell', 'filesystem'] } },
    });
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const before = await readFile(file, 'utf8');
    const bad = await cli(['config', 'set', 'approval', 'sometimes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('settings.approval must be ask, always or never');
    const unknown = await cli(['config', 'set', 'aproval', 'never']);
    expect(unknown.stderr).toContain('Did you mean "approval"?');
    expect(await readFile(file, 'utf8')).toBe(before);

    expect(
      await cli(['config', 'set', 'database_url', 'postgres://ann:s3cret@db.example/birdie']),
    ).toMatchObject({ code: 0 });
    const shown =
      (await cli(['config', 'list'])).stdout + (await cli(['config', 'get', 'database_url'])).stdout;
    expect(shown).toContain('postgres://ann:***@db.example/birdie');
    expect(shown).not.toContain('s3cret');
    expect(await cli(['config', 'unset', 'database_url'])).toMatchObject({ code: 0 });
    expect(await cli(['config', 'unset', 'approval'])).toMatchObject({ code: 0 });
    expect((await cli(['config', 'get', 'approval'])).stdout).toBe('ask\n');
  });

  it('sets the serve settings of nested sections (workspaces, sandbox network, workspace quota), typed; unsets them to nothing', async () => {
    const file = join(box.home, 'config.json');
    for (const [key, value] of [
      ['serve.workspaces', '/srv/birdie/workspaces'],
      ['serve.workspace', 'session'],
      ['serve.sandbox.network', 'true'],
      ['serve.limits.workspace_bytes', '1048576'],
    ])
      expect(await cli(['config', 'set', key!, value!])).toMatchObject({ code: 0 });
    expect(JSON.parse(await readFile(file, 'utf8')).settings).toEqual({
      serve: {
        workspaces: '/srv/birdie/workspaces',
        workspace: 'session',
        sandbox: { network: true },
        limits: { workspace_bytes: 1048576 },
      },
    });
    expect((await cli(['config', 'get', 'serve.limits.workspace_bytes', '--json'])).stdout).toBe('1048576\n');
    expect((await cli(['config', 'list'])).stdout).toMatch(
      new RegExp(`serve\\.sandbox\\.network\\s+true\\s+file ${file}`),
    );
    const bad = await cli(['config', 'set', 'serve.workspace', 'team']);
    expect(bad.stderr).toContain('settings.serve.workspace must be user or session');
    const relative = await cli(['config', 'set', 'serve.workspaces', 'work/spaces']);
    expect(relative.stderr).toContain('settings.serve.workspaces must be an absolute path');
    for (const key of ['serve.sandbox.network', 'serve.limits.workspace_bytes', 'serve.workspace'])
      expect(await cli(['config', 'unset', key])).toMatchObject({ code: 0 });
    // The emptied sections go with their last key.
    expect(JSON.parse(await readFile(file, 'utf8')).settings).toEqual({
      serve: { workspaces: '/srv/birdie/workspaces' },
    });
    expect((await cli(['config', 'get', 'serve.sandbox.network'])).stdout).toBe('false\n');
    expect((await cli(['config', 'get', 'serve.workspace'])).stdout).toBe('user\n');
  });

  it('set: a refused value names the setting and the allowed values, never a place in a file it did not write', async () => {
    const file = join(box.home, 'config.json');
    // no config file yet: nothing to point into, and none is made
    const fresh = await cli(['config', 'set', 'approval', 'sometimes']);
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toBe(
      `birdie: approval "sometimes": settings.approval must be ask, always or never; ${file} is unchanged\n`,
    );
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    // a file whose text the refused value was never part of: the same words
    await writeFile(file, `${JSON.stringify({ settings: { titles: 'model' } })}\n`);
    const existing = await cli(['config', 'set', 'context_window', '12']);
    expect(existing.stderr).toBe(
      `birdie: context_window "12": settings.context_window must be at least 1000 tokens; ${file} is unchanged\n`,
    );
    // a problem already in the file is pointed at where it is
    await writeFile(file, '{\n  "settings": {\n    "titles": "often"\n  }\n}\n');
    expect((await cli(['config', 'set', 'approval', 'never'])).stderr).toContain(
      `Invalid config in file ${file} at line 3, column 5: settings.titles must be prompt or model`,
    );
  });

  it('set skills.enable: a name no loaded skill has is kept, with the suggestion a start would make', async () => {
    const env = { ...box.env, BIRDIE_BUNDLED_SKILLS: TEST_SKILLS };
    const set = await runCli(['config', 'set', 'skills.enable', 'echoer,wordcount'], { env, cwd: box.cwd });
    expect(set.code).toBe(0);
    expect(set.stdout).toContain('skills.enable = echoer, wordcount');
    expect(set.stderr).toBe(
      'birdie: setting skills.enable: no skill "wordcount", so it is not enabled. Did you mean "word-count"?\n',
    );
    const disable = await runCli(['config', 'set', 'skills.disable', 'word-count'], { env, cwd: box.cwd });
    expect(disable.stderr).toBe('');
  });

  it('tool_output sets how much of each tool result a new REPL shows', async () => {
    expect(await cli(['config', 'set', 'tool_output', 'off'])).toMatchObject({ code: 0 });
    const output = new PassThrough();
    const io: Io = { stdout: output, stderr: output, stdin: Readable.from([]), env: box.env, cwd: box.cwd };
    const state = await bootRepl(
      io,
      {},
      { approval: 'ask', style: styler(output, box.env), resumeId: undefined },
    );
    try {
      expect(state.toolMode).toBe('off');
    } finally {
      await state.rt.close();
    }
    expect((await cli(['config', 'set', 'tool_output', 'all'])).stderr).toContain(
      'must be full, short or off',
    );
  });

  it('birdie run: a new session starts with the skills of skills.enable (unknown names warned about), --disable wins; approval applies', async () => {
    expect(await cli(['config', 'set', 'skills.enable', 'echoer,wordcount'])).toMatchObject({ code: 0 });
    expect(await cli(['config', 'set', 'approval', 'never'])).toMatchObject({ code: 0 });
    const shouting = { env: { ...box.env, ...scripted('repl.json') }, cwd: box.cwd };
    // echoer is off by default: only the setting turns it on.
    const shouted = await runCli(['run', '--json', 'please shout', '--skills-dir', TEST_SKILLS], shouting);
    expect(shouted.code, shouted.stderr).toBe(0);
    expect(shouted.stdout).toContain('HELLO BIRDIE');
    expect(shouted.stderr).toContain(
      `birdie: setting skills.enable (file ${join(box.home, 'config.json')}): no skill "wordcount", so it is not enabled. Did you mean "word-count"?`,
    );
    const id = (JSON.parse(shouted.stdout.split('\n')[0]!) as { id: string }).id;
    expect((await cli(['sessions', 'show', id, '--json'])).stdout).toContain('HELLO BIRDIE');

    const flagged = await runCli(
      ['run', '--json', 'please shout', '--skills-dir', TEST_SKILLS, '--disable', 'echoer'],
      shouting,
    );
    expect(flagged.stdout).not.toContain('HELLO BIRDIE');
    expect(flagged.stdout).toContain('is not available in this session');

    // count.json's "touch it" asks for approval: with approval never it runs without --yes
    const touched = await runCli(['run', 'touch it', '--skills-dir', TEST_SKILLS], {
      env: box.env,
      cwd: box.cwd,
    });
    expect(touched.code, touched.stderr).toBe(0);
    expect((await stat(join(box.cwd, 'marker.txt'))).isFile()).toBe(true);
  });

  it('skills.enable naming a skill of a project folder not trusted: a warning, the skill not granted; trusted, it is', async () => {
    const dir = join(box.cwd, '.birdie', 'skills', 'loud');
    await mkdir(dir, { recursive: true });
    const skill = await readFile(join(TEST_SKILLS, 'echoer', 'SKILL.md'), 'utf8');
    await writeFile(join(dir, 'SKILL.md'), skill.replace('name: echoer', 'name: loud'));
    expect(await cli(['config', 'set', 'skills.enable', 'loud'])).toMatchObject({ code: 0 });
    const shouting = { env: { ...box.env, ...scripted('repl.json') }, cwd: box.cwd };
    const refused = await runCli(['run', '--json', 'please shout'], shouting);
    expect(refused.stderr).toContain(
      `setting skills.enable (file ${join(box.home, 'config.json')}): skill "loud" is in ${box.cwd}, a project folder not trusted for what it declares now, so it is not enabled in this session.`,
    );
    expect(refused.stdout).not.toContain('HELLO BIRDIE');
    const trusted = await runCli(['run', '--json', 'please shout', '--trust-workspace'], shouting);
    expect(trusted.stderr).not.toContain('skills.enable');
    expect(trusted.stdout).toContain('HELLO BIRDIE');
  });

  // Reported: with `model` set to `openai:gpt-4o`, the README's offline form (LLM_PROVIDER_CONFIG naming the scripted
  // vendor and its script, no model) failed asking for OPENAI_API_KEY: the setting beat a vendor given for the run.
  it('a vendor given for one run (LLM_PROVIDER_CONFIG, LLM_VENDOR) wins over the model setting, as LLM_MODEL does', async () => {
    expect(await cli(['config', 'set', 'model', 'openai:gpt-4o'])).toMatchObject({ code: 0 });
    const script = scripted('demo.json').LLM_SCRIPT!;
    const { LLM_VENDOR: _vendor, LLM_SCRIPT: _script, ...bare } = box.env;
    for (const env of [
      { ...bare, LLM_PROVIDER_CONFIG: JSON.stringify({ vendor: 'scripted', script }) },
      { ...bare, LLM_VENDOR: 'scripted', LLM_SCRIPT: script },
    ]) {
      const run = await runCli(['run', 'hi'], { env, cwd: box.cwd });
      expect(run.stderr).not.toContain('OPENAI_API_KEY');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('I only know the lines of this demo script.');
    }
  });

  it('model picks the default model of new runs, as /model names one; LLM_MODEL still wins for one run', async () => {
    const file = join(box.home, 'config.json');
    await writeFile(
      file,
      `${JSON.stringify({ provider: { vendor: 'scripted', models: { fast: { model: 'quick' } } } })}\n`,
    );
    const bad = await cli(['config', 'set', 'model', 'quick']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('settings.model must be a tier (fast, default, strong) or vendor:model');
    expect(await cli(['config', 'set', 'model', 'fast'])).toMatchObject({ code: 0 });
    expect((await cli(['config', 'list'])).stdout).toMatch(new RegExp(`model\\s+fast\\s+file ${file}`));

    const usedModels = async () => {
      const logs = await cli(['logs', '--json']);
      return logs.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { model: string; usage: Array<{ model: string }> })
        .map((run) => [run.model, ...run.usage.map((u) => u.model)].join(' '));
    };
    expect((await cli(['run', 'count these'])).code).toBe(0);
    expect(await usedModels()).toEqual(['scripted:quick scripted:quick']);
    const once = await runCli(['run', 'count these'], {
      env: { ...box.env, LLM_MODEL: 'chosen' },
      cwd: box.cwd,
    });
    expect(once.code, once.stderr).toBe(0);
    expect((await usedModels()).sort()).toEqual([
      'scripted:chosen scripted:chosen',
      'scripted:quick scripted:quick',
    ]);
  });

  // Reported: `config set model zork:gpt-4` (no such vendor) and `config set model strong` (no provider section
  // defines that tier) were saved without a word, and every run after them failed with exit 2.
  it('model: an unknown vendor is refused unwritten; a tier no provider section defines is saved with a warning', async () => {
    const file = join(box.home, 'config.json');
    await writeFile(
      file,
      `${JSON.stringify({ provider: { vendor: 'scripted', models: { fast: { model: 'quick' } } } })}\n`,
    );
    const before = await readFile(file, 'utf8');
    const vendor = await cli(['config', 'set', 'model', 'zork:gpt-4']);
    expect(vendor.code).toBe(2);
    expect(vendor.stderr).toContain(
      'settings.model names the vendor "zork", which birdie does not know (openai, azure, anthropic, mistral, gemini, ollama, scripted, acp, langchain)',
    );
    expect(await readFile(file, 'utf8')).toBe(before);
    // Written by hand, the same value stops a run at its place in the file, before any model is asked.
    await writeFile(
      file,
      `${JSON.stringify({ provider: { vendor: 'scripted' }, settings: { model: 'zork:gpt-4' } }, null, 2)}\n`,
    );
    const run = await cli(['run', 'count these']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/at line \d+, column \d+: settings\.model names the vendor "zork"/);

    await writeFile(file, before);
    const tier = await cli(['config', 'set', 'model', 'strong']);
    expect(tier.code, tier.stderr).toBe(0);
    expect(tier.stderr).toContain(
      'birdie: no provider section defines the model tier "strong" (defined: fast): runs fail until one does, e.g. "models": { "strong": { "model": "…" } } in the provider section of',
    );
    expect((await cli(['config', 'get', 'model'])).stdout).toContain('strong');
    const defined = await cli(['config', 'set', 'model', 'fast']);
    expect(defined).toMatchObject({ code: 0, stderr: '' });
  });
});
