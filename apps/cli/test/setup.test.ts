import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, sandbox } from './helpers/env.js';
import { Terminal } from './helpers/pty.js';
import { runCli } from './helpers/run-in-process.js';

let box: Sandbox;
let terminal: Terminal | undefined;
let server: Server | undefined;
beforeEach(async () => {
  box = await sandbox();
});
afterEach(async () => {
  terminal?.kill();
  server?.closeAllConnections(); // a stand-in that never answers keeps its connections
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
  await box.cleanup();
});

/** An OpenAI-compatible stand-in that knows one key. */
async function openaiStandIn(): Promise<string> {
  server = createServer((req, res) => {
    const ok = req.url === '/v1/models' && req.headers.authorization === 'Bearer sk-good';
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(ok ? '{"data":[{"id":"gpt-4o-mini"}]}' : '{"error":{"message":"Incorrect API key"}}');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`;
}

describe('birdie setup (the wizard, checked keys)', { timeout: 60_000 }, () => {
  it('refuses an empty key with none in the environment and a key the vendor rejects; saves the good one, keeping settings', async () => {
    const url = await openaiStandIn();
    const config = join(box.home, 'config.json');
    await writeFile(
      config,
      `${JSON.stringify({ provider: { vendor: 'openai', api_key: 'sk-old' }, settings: { approval: 'always' } })}\n`,
    );
    const t = new Terminal(['setup'], { env: { ...box.env, LLM_BASE_URL: url }, cwd: box.cwd });
    terminal = t;
    await t.expect('choose the model provider');
    await t.expect('Which provider?');
    t.write('\r'); // openai
    await t.expect('Model');
    t.write('\r');
    await t.expect('Base URL (empty: https://api.openai.com/v1');
    t.write('\r'); // none: the vendor's own
    await t.expect('OPENAI_API_KEY is not set, so one is needed');
    t.write('\r'); // empty
    await t.expect('a key is required: OPENAI_API_KEY is not set');
    t.write('sk-bad\r');
    await t.expect('openai refused the key (HTTP 401); nothing was saved');
    expect(JSON.parse(await readFile(config, 'utf8')).provider.api_key).toBe('sk-old');
    await t.expect('API key');
    t.write('sk-good\r');
    await t.expect('Key accepted');
    await t.expect('(mode 0600)');
    expect(await t.exited).toBe(0);
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({
      provider: { vendor: 'openai', model: expect.any(String), api_key: 'sk-good' },
      settings: { approval: 'always' },
    });
  });

  it('the first start (the report: an empty key saved, then exit 2 on every start) asks again and saves nothing', async () => {
    const url = await openaiStandIn();
    const t = new Terminal([], { env: { ...box.env, LLM_BASE_URL: url }, cwd: box.cwd });
    terminal = t;
    await t.expect('no model provider is configured yet');
    await t.expect('Which provider?'); // the select listens once it is drawn: an Enter before that is lost
    t.write('\r'); // openai
    await t.expect('Model');
    t.write('\r');
    await t.expect('Base URL (empty: https://api.openai.com/v1');
    t.write('\r'); // none: the vendor's own
    await t.expect('API key');
    t.write('\r'); // empty, and OPENAI_API_KEY is not set
    await t.expect('a key is required: OPENAI_API_KEY is not set');
    await expect(readFile(join(box.home, 'config.json'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
    t.write('sk-good\r');
    await t.expect('Key accepted');
    await t.expect('/help for commands'); // the REPL starts instead of exiting 2
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
  });

  it('a saved config older versions wrote (an empty key): scripts get the error and the way out; a terminal start offers setup', async () => {
    const url = await openaiStandIn();
    const config = join(box.home, 'config.json');
    await writeFile(
      config,
      `${JSON.stringify({ provider: { vendor: 'openai', model: 'gpt-4o-mini', api_key: '' }, settings: { approval: 'always' } })}\n`,
    );
    const env = { ...box.env, LLM_BASE_URL: url };
    const before = await readFile(config, 'utf8');
    for (const args of [
      ['run', 'hello'],
      ['config', 'list'],
      ['config', 'set', 'approval', 'never'],
    ]) {
      const result = await runCli(args, { env, cwd: box.cwd });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toBe(
        `birdie: Invalid config in file ${config} at line 1, column 54: provider.api_key must not be empty; run \`birdie setup\` to set it again\n`,
      );
    }
    expect(await readFile(config, 'utf8')).toBe(before);

    const t = new Terminal([], { env, cwd: box.cwd });
    terminal = t;
    await t.expect('provider.api_key must not be empty');
    await t.expect('Which provider?');
    t.write('\r'); // openai
    await t.expect('Model');
    t.write('\r');
    await t.expect('Base URL (empty: https://api.openai.com/v1');
    t.write('\r'); // none: the vendor's own
    await t.expect('API key');
    t.write('sk-good\r');
    await t.expect('Key accepted');
    await t.expect('/help for commands'); // the REPL starts instead of exiting 2
    await t.submit('/info');
    await t.expect(/provider\s+openai · gpt-4o-mini/);
    await t.submit('/quit');
    expect(await t.exited).toBe(0);
    expect(JSON.parse(await readFile(config, 'utf8'))).toEqual({
      provider: { vendor: 'openai', model: 'gpt-4o-mini', api_key: 'sk-good' },
      settings: { approval: 'always' },
    });
  });

  it('a vendor that does not answer the key check in time: the wizard says so after its short timeout and saves the key', async () => {
    // Takes the connection and never answers.
    server = createServer(() => {});
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/v1`;
    const t = new Terminal(['setup'], { env: { ...box.env, LLM_BASE_URL: url }, cwd: box.cwd });
    terminal = t;
    await t.expect('Which provider?');
    t.write('\r'); // openai
    await t.expect('Model');
    t.write('\r');
    await t.expect('Base URL (empty: https://api.openai.com/v1');
    t.write('\r'); // none: the vendor's own
    await t.expect('API key');
    t.write('sk-unanswered\r');
    await t.expect('Checking the key');
    await t.expect(
      `Could not check the key: ${url}/models could not be reached (no answer within 5000 ms)`,
      20_000,
    );
    await t.expect('(mode 0600)');
    expect(await t.exited).toBe(0);
    expect(JSON.parse(await readFile(join(box.home, 'config.json'), 'utf8')).provider).toMatchObject({
      vendor: 'openai',
      api_key: 'sk-unanswered',
    });
  });

  it('asks for a base URL: a local OpenAI-compatible server without a key is saved, and birdie then talks to it', async () => {
    const { openAiRecorder } = await import('./helpers/openai-recorder.js');
    const local = await openAiRecorder(() => ({ text: 'Hello from the local server.' }));
    try {
      const t = new Terminal(['setup'], { env: box.env, cwd: box.cwd });
      terminal = t;
      await t.expect('Which provider?');
      t.write('\r'); // openai
      await t.expect('Model');
      t.write('\x15qwen2.5-7b\r');
      await t.expect('a local OpenAI-compatible server: e.g. http://127.0.0.1:8080/v1');
      t.write('ftp://nowhere\r');
      await t.expect('must start with http:// or https://');
      t.write(`\x15${local.baseUrl}\r`);
      await t.expect('API key (leave empty for a server that needs none)');
      t.write('\r');
      await t.expect('(mode 0600)');
      expect(await t.exited).toBe(0);
      expect(JSON.parse(await readFile(join(box.home, 'config.json'), 'utf8'))).toEqual({
        provider: { vendor: 'openai', model: 'qwen2.5-7b', base_url: local.baseUrl },
      });
      const run = await runCli(['run', 'hi'], { env: box.env, cwd: box.cwd });
      expect(run.stdout).toContain('Hello from the local server.');
      expect(local.requests.at(-1)?.model).toBe('qwen2.5-7b');
    } finally {
      await local.close();
    }
  });

  it('needs a terminal: in a pipe it says what to do instead (exit 2)', async () => {
    const result = await runCli(['setup'], { env: box.env, cwd: box.cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('birdie setup needs a terminal');
  });
});
