import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatAnthropic } from '@langchain/anthropic';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { ChatMistralAI } from '@langchain/mistralai';
import { ChatOllama } from '@langchain/ollama';
import { AzureChatOpenAI, ChatOpenAI } from '@langchain/openai';
import { afterEach, describe, expect, it } from 'vitest';
import { rejection } from '../test/helpers.js';
import { createChatModel } from './create-chat-model.js';
import { importVendorPackage } from './load-vendor.js';
import { resolveProviderConfig } from './resolve-config.js';

const KEY = 'test-key-0123456789abcdefXYZ';

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** A local server that always answers `status` with `body`, recording requests. */
async function serve(status: number, body: unknown): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    seen.push({
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      body: raw ? JSON.parse(raw) : undefined,
    });
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function model(env: Record<string, string>) {
  const { config } = await resolveProviderConfig({ env });
  return createChatModel(config);
}

describe('createChatModel builds each vendor from its official package', () => {
  it('openai → ChatOpenAI with model, limits and base URL', async () => {
    const chat = await model({
      OPENAI_API_KEY: KEY,
      LLM_MODEL: 'gpt-4.1-mini',
      LLM_TEMPERATURE: '0.3',
      LLM_MAX_TOKENS: '512',
      LLM_TIMEOUT: '5000',
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    });
    expect(chat).toBeInstanceOf(ChatOpenAI);
    expect(chat).toMatchObject({ model: 'gpt-4.1-mini', temperature: 0.3, maxTokens: 512, timeout: 5000 });
    expect((chat as ChatOpenAI).clientConfig.baseURL).toBe('http://127.0.0.1:9/v1');
    expect(chat._llmType()).toBe('openai');
  });

  const vendors: Array<{
    title: string;
    env: Record<string, string>;
    type: new (...args: never[]) => BaseChatModel;
    fields: object;
  }> = [
    {
      title: 'azure → AzureChatOpenAI with endpoint, deployment and api version',
      env: {
        LLM_VENDOR: 'azure',
        LLM_MODEL: 'prod-gpt4o',
        AZURE_OPENAI_API_KEY: KEY,
        AZURE_OPENAI_ENDPOINT: 'https://example.openai.azure.com',
      },
      type: AzureChatOpenAI,
      fields: {
        azureOpenAIEndpoint: 'https://example.openai.azure.com',
        azureOpenAIApiDeploymentName: 'prod-gpt4o',
        azureOpenAIApiVersion: '2024-10-21',
      },
    },
    {
      title: 'anthropic → ChatAnthropic with the base URL',
      env: { LLM_VENDOR: 'anthropic', ANTHROPIC_API_KEY: KEY, LLM_MAX_TOKENS: '1000' },
      type: ChatAnthropic,
      fields: { model: 'claude-sonnet-4-5', maxTokens: 1000, apiUrl: 'https://api.anthropic.com' },
    },
    {
      title: 'mistral → ChatMistralAI with server URL and its own retries',
      env: {
        LLM_VENDOR: 'mistral',
        MISTRAL_API_KEY: KEY,
        LLM_BASE_URL: 'http://127.0.0.1:9',
        LLM_MAX_RETRIES: '4',
      },
      type: ChatMistralAI,
      fields: { model: 'mistral-large-latest', serverURL: 'http://127.0.0.1:9', maxRetries: 4 },
    },
    {
      title: 'gemini → ChatGoogleGenerativeAI reading GEMINI_API_KEY too',
      env: { LLM_VENDOR: 'gemini', GEMINI_API_KEY: KEY, LLM_MAX_TOKENS: '256', LLM_TEMPERATURE: '1' },
      type: ChatGoogleGenerativeAI,
      fields: { model: 'gemini-2.5-flash', maxOutputTokens: 256, temperature: 1 },
    },
    {
      title: 'ollama → ChatOllama with the host',
      env: { LLM_VENDOR: 'ollama', LLM_MODEL: 'qwen3:8b', OLLAMA_HOST: 'http://127.0.0.1:9' },
      type: ChatOllama,
      fields: { model: 'qwen3:8b', baseUrl: 'http://127.0.0.1:9' },
    },
  ];
  for (const { title, env, type, fields } of vendors) {
    it(title, async () => {
      const chat = await model(env);
      expect(chat).toBeInstanceOf(type);
      expect(chat).toMatchObject(fields);
    });
  }

  it('openai with a base_url of its own needs no key (OpenAI-compatible local servers)', async () => {
    const fixture = JSON.parse(
      await readFile(new URL('../test/fixtures/openai/plain.json', import.meta.url), 'utf8'),
    );
    const { url, seen } = await serve(200, fixture.exchanges[0].response.json);
    const { config } = await resolveProviderConfig({
      env: { LLM_BASE_URL: `${url}/v1`, LLM_MODEL: 'qwen2.5-7b' },
    });
    expect(config.api_key).toBeUndefined();
    const reply = await (await createChatModel(config)).invoke('hi');
    expect(reply.content).toBe('Hello from the fixture.');
    expect(seen[0]!.body.model).toBe('qwen2.5-7b');
  });

  it('every model is a BaseChatModel with bindTools', async () => {
    const chat = await model({ OPENAI_API_KEY: KEY });
    expect(chat).toBeInstanceOf(BaseChatModel);
    expect(typeof chat.bindTools).toBe('function');
  });
});

describe('failures of the less common vendors become ProviderErrors too', () => {
  it('mistral: a 401 names MISTRAL_API_KEY', async () => {
    const { url, seen } = await serve(401, { message: 'Unauthorized', request_id: 'r1' });
    const chat = await model({ LLM_VENDOR: 'mistral', MISTRAL_API_KEY: KEY, LLM_BASE_URL: url });
    const error = await rejection(chat.invoke('hi'));
    expect(error).toMatchObject({ code: 'auth-failed', status: 401, envVar: 'MISTRAL_API_KEY' });
    expect(error.message).not.toContain(KEY);
    expect(seen[0]!.url).toBe('/v1/chat/completions');
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('gemini: a 403 names GOOGLE_API_KEY', async () => {
    const { url, seen } = await serve(403, {
      error: { code: 403, message: 'API key not valid.', status: 'PERMISSION_DENIED' },
    });
    const chat = await model({ LLM_VENDOR: 'gemini', GOOGLE_API_KEY: KEY, LLM_BASE_URL: url });
    const error = await rejection(chat.invoke('hi'));
    expect(error).toMatchObject({ code: 'auth-failed', status: 403, envVar: 'GOOGLE_API_KEY' });
    expect(error.message).not.toContain(KEY);
    expect(seen[0]!.url).toContain('/models/gemini-2.5-flash:generateContent');
  });

  it('azure: a 401 names AZURE_OPENAI_API_KEY, after calling the deployment URL', async () => {
    const { url, seen } = await serve(401, {
      error: { code: '401', message: 'Access denied due to invalid subscription key.' },
    });
    const chat = await model({
      LLM_VENDOR: 'azure',
      LLM_MODEL: 'dep1',
      AZURE_OPENAI_API_KEY: KEY,
      LLM_BASE_URL: url,
    });
    const error = await rejection(chat.invoke('hi'));
    expect(error).toMatchObject({ code: 'auth-failed', status: 401, envVar: 'AZURE_OPENAI_API_KEY' });
    expect(seen[0]!.url).toBe('/openai/deployments/dep1/chat/completions?api-version=2024-10-21');
    expect(seen[0]!.headers['api-key']).toBe(KEY);
  });

  it('openai without a key (a local compatible server): a 401 says no key was sent, not that one is wrong', async () => {
    const { url } = await serve(401, {
      error: { message: 'Missing bearer token', type: 'invalid_request_error' },
    });
    const chat = await model({
      LLM_PROVIDER_CONFIG: JSON.stringify({ vendor: 'openai', base_url: `${url}/v1` }),
    });
    const error = await rejection(chat.invoke('hi'));
    expect(error).toMatchObject({ code: 'auth-failed', status: 401, envVar: 'OPENAI_API_KEY' });
    expect(error.message).toContain(
      'openai rejected the credentials (HTTP 401): no API key was sent; set OPENAI_API_KEY',
    );
  });

  it('a model with tools bound keeps its errors: an unreachable openai server names the URL', async () => {
    const { url } = await serve(200, {});
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const tool = {
      type: 'function',
      function: { name: 'echo', description: 'echoes', parameters: { type: 'object', properties: {} } },
    };
    const openai = await model({
      LLM_PROVIDER_CONFIG: JSON.stringify({ vendor: 'openai', base_url: `${url}/v1`, max_retries: 0 }),
    });
    // AzureChatOpenAI's withConfig makes a plain ChatOpenAI: its errors are mapped all the same
    const azure = await model({
      LLM_VENDOR: 'azure',
      LLM_MODEL: 'deployment',
      AZURE_OPENAI_API_KEY: KEY,
      AZURE_OPENAI_ENDPOINT: url,
      LLM_MAX_RETRIES: '0',
    });
    for (const [chat, vendor, at] of [
      [openai, 'openai', `${url}/v1`],
      [azure, 'azure', url],
    ] as const) {
      for (const bound of [chat.bindTools!([tool]), chat.withConfig({ tags: ['x'] })]) {
        const error = await rejection(bound.invoke('hi'));
        expect(error.code).toBe('request-failed');
        expect(error.message).toBe(
          `${vendor} could not be reached at ${at}: nothing is listening there (connection refused); check that the server is running and its address (base_url)`,
        );
      }
    }
  });

  it('a server that cannot be reached is a request-failed error naming the URL', async () => {
    const { url } = await serve(200, {});
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const chat = await model({ LLM_VENDOR: 'ollama', OLLAMA_HOST: url, LLM_MAX_RETRIES: '0' });
    const error = await rejection(chat.invoke('hi'));
    expect(error.code).toBe('request-failed');
    expect(error.message).toBe(
      `ollama could not be reached at ${url}: nothing is listening there (connection refused); check that the server is running and its address (base_url)`,
    );
  });
});

describe('timeouts', () => {
  async function silent(): Promise<string> {
    server = createServer(() => {});
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  afterEach(() => server?.closeAllConnections());

  for (const [vendor, env] of [
    ['ollama', (url: string) => ({ LLM_VENDOR: 'ollama', OLLAMA_HOST: url })],
    ['openai', (url: string) => ({ LLM_VENDOR: 'openai', LLM_BASE_URL: `${url}/v1`, OPENAI_API_KEY: KEY })],
    ['anthropic', (url: string) => ({ LLM_VENDOR: 'anthropic', LLM_BASE_URL: url, ANTHROPIC_API_KEY: KEY })],
  ] as const) {
    it(`${vendor}: a server that does not answer in time gives a timeout error`, async () => {
      const url = await silent();
      const chat = await model({ ...env(url), LLM_TIMEOUT: '300', LLM_MAX_RETRIES: '0' });
      const error = await rejection(chat.invoke('hi'));
      expect(error).toMatchObject({ code: 'timeout', vendor });
      expect(error.message).toContain(`${vendor} did not answer within 300 ms at ${url}`);
    });
  }
});

describe('vendor packages are optional and lazy', () => {
  it('a missing package says what to install', async () => {
    const name = '@langchain/not-a-vendor';
    const error = await rejection(importVendorPackage(name, () => import(name)));
    expect(error).toMatchObject({ code: 'missing-package', packageName: name });
    expect(error.message).toBe(
      `${name} is not installed: install ${name} (npm install ${name}) to use this vendor`,
    );
  });

  it('other import failures are not disguised', async () => {
    await expect(
      importVendorPackage('@langchain/openai', () => Promise.reject(new SyntaxError('boom'))),
    ).rejects.toThrow(SyntaxError);
  });

  it('no source module imports a vendor package statically', async () => {
    const dir = new URL('./', import.meta.url);
    const files = (await readdir(dir, { recursive: true })).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const source = await readFile(new URL(file, dir), 'utf8');
      expect(source, file).not.toMatch(
        /^import (?!type )[^;]*from '@langchain\/(openai|anthropic|ollama|mistralai|google-genai)'/m,
      );
    }
  });
});
