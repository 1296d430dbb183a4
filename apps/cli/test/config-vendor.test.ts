import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, type Sandbox, sandbox } from './helpers/env.js';

const exec = promisify(execFile);

const ANTHROPIC_KEY = 'sk-ant-api03-SAVEDSAVEDSAVED-0123456789';
const OPENAI_KEY = 'sk-proj-ENVENVENVENV-0123456789';

interface Recorded {
  path: string;
  headers: IncomingHttpHeaders;
  body: { model?: string; stream?: boolean };
}

/**
 * An OpenAI-compatible server on 127.0.0.1 that records what it is sent and answers every chat completion with
 * one short reply (streamed when asked to stream).
 */
async function openAiServer(): Promise<{ url: string; requests: Recorded[]; close(): Promise<void> }> {
  const requests: Recorded[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    requests.push({ path: req.url ?? '', headers: req.headers, body });
    const base = { id: 'chatcmpl-test', created: 1763719200, model: body.model ?? 'unknown' };
    const usage = { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 };
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null, withUsage = false) =>
        `data: ${JSON.stringify({
          ...base,
          object: 'chat.completion.chunk',
          choices: withUsage ? [] : [{ index: 0, delta, finish_reason: finish }],
          usage: withUsage ? usage : null,
        })}\n\n`;
      res.write(chunk({ role: 'assistant', content: 'local ' }, null));
      res.write(chunk({ content: 'answer' }, null));
      res.write(chunk({}, 'stop'));
      res.write(chunk({}, null, true));
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'local answer' }, finish_reason: 'stop' },
        ],
        usage,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let box: Sandbox;
let server: Awaited<ReturnType<typeof openAiServer>>;
beforeEach(async () => {
  box = await sandbox();
  server = await openAiServer();
});
afterEach(async () => {
  await server.close();
  await box.cleanup();
});

async function birdie(args: string[], env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BIN, ...args], {
      env: { ...box.env, ...env },
      cwd: box.cwd,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const saveAnthropicConfig = (shape: 'flat' | 'sections' = 'flat') => {
  const provider = { vendor: 'anthropic', model: 'claude-sonnet-4-5', api_key: ANTHROPIC_KEY };
  return writeFile(
    join(box.home, 'config.json'),
    JSON.stringify(shape === 'flat' ? provider : { provider }, null, 2),
    { mode: 0o600 },
  );
};

describe('a key never goes to another vendor (issue 12, defect 7)', { timeout: 60_000 }, () => {
  it('LLM_PROVIDER_CONFIG naming openai does not send the saved anthropic key or model to its base_url', async () => {
    await saveAnthropicConfig();
    const inline = JSON.stringify({ vendor: 'openai', base_url: server.url });
    const result = await birdie(['run', 'hello', '--json'], { LLM_PROVIDER_CONFIG: inline });

    expect(server.requests.length).toBeGreaterThan(0);
    for (const request of server.requests) {
      expect(JSON.stringify(request.headers)).not.toContain(ANTHROPIC_KEY.slice(0, 12));
      expect(request.body.model).toBe('gpt-4o-mini');
    }
    expect(result.stderr).not.toContain('OPENAI_API_KEY');
    expect(result.code).toBe(0);
    const session = JSON.parse(result.stdout.split('\n')[0]!);
    expect(session).toMatchObject({ type: 'session', provider: 'openai/gpt-4o-mini' });
    expect(session.sources).toMatchObject({
      vendor: 'inline LLM_PROVIDER_CONFIG',
      base_url: 'inline LLM_PROVIDER_CONFIG',
      model: 'default',
    });
    expect(session.sources.api_key).toBeUndefined();
    expect(result.stdout).not.toContain(ANTHROPIC_KEY.slice(0, 12));
  });

  it('LLM_VENDOR and the vendor key variable beat the saved file, in either file shape', async () => {
    for (const shape of ['flat', 'sections'] as const) {
      await saveAnthropicConfig(shape);
      server.requests.length = 0;
      const result = await birdie(['run', 'hello', '--json'], {
        LLM_VENDOR: 'openai',
        OPENAI_API_KEY: OPENAI_KEY,
        OPENAI_BASE_URL: server.url,
      });
      expect(result.code).toBe(0);
      expect(server.requests.map((r) => r.headers.authorization)).toEqual(
        server.requests.map(() => `Bearer ${OPENAI_KEY}`),
      );
      const session = JSON.parse(result.stdout.split('\n')[0]!);
      expect(session.sources).toMatchObject({
        vendor: 'env LLM_VENDOR',
        api_key: 'env OPENAI_API_KEY',
        base_url: 'env OPENAI_BASE_URL',
      });
    }
  });

  it('a key variable of another vendor does not replace the saved vendor or its key', async () => {
    await saveAnthropicConfig('sections');
    const result = await birdie(['run', 'hello', '--json'], {
      OPENAI_API_KEY: OPENAI_KEY,
      // Where the anthropic client would go: the same local server, so a crossing key would show up here.
      ANTHROPIC_BASE_URL: server.url.replace(/\/v1$/, ''),
      LLM_MAX_RETRIES: '0',
    });
    for (const request of server.requests) {
      expect(JSON.stringify(request.headers)).not.toContain(OPENAI_KEY.slice(0, 12));
      expect(request.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    }
    expect(server.requests.length).toBeGreaterThan(0);
    expect(result.stdout).not.toContain(ANTHROPIC_KEY.slice(0, 12));
  });
});

describe('vendor langchain in the bundled CLI', { timeout: 60_000 }, () => {
  const events = (stdout: string) =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; text?: string; status?: string });

  it('"openai:…" goes through initChatModel to a local OpenAI-compatible server, streaming', async () => {
    const inline = JSON.stringify({
      vendor: 'langchain',
      model: 'openai:gpt-4o-mini',
      api_key: OPENAI_KEY,
      options: { configuration: { baseURL: server.url } },
    });
    const result = await birdie(['run', 'hello', '--json'], { LLM_PROVIDER_CONFIG: inline });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]?.body).toMatchObject({ model: 'gpt-4o-mini', stream: true });
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    const all = events(result.stdout);
    expect(all[0]).toMatchObject({ type: 'session', provider: 'langchain/openai:gpt-4o-mini' });
    expect(all.filter((e) => e.type === 'token').map((e) => e.text)).toEqual(['local ', 'answer']);
    expect(all.at(-1)).toMatchObject({ type: 'result', status: 'ok' });
  });

  it('module + class constructs an installed integration', async () => {
    const inline = JSON.stringify({
      vendor: 'langchain',
      module: '@langchain/openai',
      class: 'ChatOpenAI',
      options: { model: 'gpt-4.1-nano', apiKey: 'sk-x', configuration: { baseURL: server.url } },
    });
    const result = await birdie(['run', 'hello', '--json'], { LLM_PROVIDER_CONFIG: inline });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]?.body.model).toBe('gpt-4.1-nano');
  });

  it('base_url is refused, naming where the integration takes its address (issue 30, defect 10)', async () => {
    const inline = JSON.stringify({
      vendor: 'langchain',
      model: 'openai:gpt-4o-mini',
      api_key: OPENAI_KEY,
      base_url: server.url,
    });
    const result = await birdie(['run', 'hello'], { LLM_PROVIDER_CONFIG: inline });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('base_url is not used by the langchain vendor');
    expect(result.stderr).toContain('"options"');
    expect(server.requests).toEqual([]);
  });

  it('a missing integration says how to install it into ~/.birdie/integrations', async () => {
    const inline = JSON.stringify({ vendor: 'langchain', model: 'groq:llama-3.3-70b' });
    const result = await birdie(['run', 'hello'], { LLM_PROVIDER_CONFIG: inline });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `birdie: @langchain/groq is not installed: run \`npm install --prefix ${join(box.home, 'integrations')} @langchain/groq\``,
    );
  });
});
