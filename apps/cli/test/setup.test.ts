import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, SCRIPTS, sandbox } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';

let box: Sandbox;
let terminal: Terminal | undefined;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  terminal?.kill();
  await box.cleanup();
});

describe('first run in a terminal', { timeout: 60_000 }, () => {
  it('asks vendor, model and key, saves ~/.birdie/config.json with mode 0600, then starts the session', async () => {
    const t = new Terminal([], { env: box.env, cwd: box.cwd });
    terminal = t;
    await t.expect('no model provider is configured yet');
    await t.expect('Which provider?');
    await t.expect('openai');
    t.write('\r'); // openai is the first choice
    await t.expect('Model');
    t.write('\r'); // keep the default model
    await t.expect('API key');
    t.write('sk-test-not-a-real-key');
    t.write('\r');
    await t.expect('(mode 0600)');
    await t.submit('/info');
    await t.expect(/provider\s+openai · gpt-4o-mini/);
    await t.expect(/api_key ← file \S+config\.json/);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);

    const file = join(box.home, 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      provider: { vendor: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test-not-a-real-key' },
    });
    expect(t.text).not.toContain('sk-test-not-a-real-key');
  });

  it('a saved file with settings but no provider still asks, and keeps the settings', async () => {
    const file = join(box.home, 'config.json');
    const settings = { approval: 'never', skills: { enable: ['word-count'] } };
    await writeFile(file, JSON.stringify({ settings }), { mode: 0o600 });
    const t = new Terminal([], { env: box.env, cwd: box.cwd });
    terminal = t;
    await t.expect('Which provider?');
    t.write('\r');
    await t.expect('Model');
    t.write('\r');
    await t.expect('API key');
    t.write('sk-test-not-a-real-key\r');
    await t.expect('(mode 0600)');
    await t.submit('/info');
    await t.expect(/approval\s+never/);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      provider: { vendor: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test-not-a-real-key' },
      settings,
    });
  });

  it('/info says where each value came from, and which saved values were not used (another vendor)', async () => {
    const file = join(box.home, 'config.json');
    await writeFile(
      file,
      JSON.stringify({ provider: { vendor: 'anthropic', api_key: 'sk-ant-not-a-real-key-0000' } }),
    );
    const inline = JSON.stringify({ vendor: 'scripted', script: join(SCRIPTS, 'repl.json') });
    const t = new Terminal([], { env: { ...box.env, LLM_PROVIDER_CONFIG: inline }, cwd: box.cwd });
    terminal = t;
    await t.expect('/help for commands');
    await t.submit('/info');
    await t.expect(/provider\s+scripted · scripted/);
    await t.expect(/not used\s+api_key ← file \S+config\.json \(for anthropic\)/);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    expect(t.text).not.toContain('sk-ant-not-a-real-key');
  });

  it('a configured provider that cannot load ends the session with its error (exit 2), without waiting for Enter', async () => {
    const t = new Terminal([], {
      env: { ...box.env, LLM_PROVIDER_CONFIG: '{"vendor":"scripted","script":"missing-script.json"}' },
      cwd: box.cwd,
    });
    terminal = t;
    await t.expect('/help for commands');
    await t.expect(/Cannot read script \S*missing-script\.json/);
    expect(await t.exited).toBe(2);
  });
});
