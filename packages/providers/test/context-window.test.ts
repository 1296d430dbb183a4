import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  contextWindowOf,
  createChatModel,
  DEFAULT_CONTEXT_WINDOWS,
  probeContextWindow,
  resolveProviderConfig,
} from '../src/index.js';

const servers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (servers.length) await servers.pop()?.();
});

/** A local Ollama stand-in answering `/api/show` with `parameters`, recording what it was asked. */
async function ollamaShow(parameters: string | undefined, status = 200) {
  const asked: Array<{ url: string; body: unknown }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      asked.push({ url: req.url ?? '', body: JSON.parse(body || 'null') });
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(parameters === undefined ? { model_info: {} } : { parameters }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(() => new Promise((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked };
}

const resolved = async (env: Record<string, string>) => (await resolveProviderConfig({ env })).config;

describe('context windows: every model knows its input limit', () => {
  it("takes the LangChain integration's model profile where it has the model", async () => {
    const model = await createChatModel(await resolved({ OPENAI_API_KEY: 'sk-x', LLM_MODEL: 'gpt-4o-mini' }));
    expect(model.profile.maxInputTokens).toBe(128_000);
    expect(contextWindowOf(model)).toEqual({ tokens: 128_000, source: 'profile' });
    const claude = await createChatModel(
      await resolved({ LLM_VENDOR: 'anthropic', ANTHROPIC_API_KEY: 'k', LLM_MODEL: 'claude-sonnet-4-5' }),
    );
    expect(contextWindowOf(claude)?.source).toBe('profile');
  });

  it("falls back to the vendor's default, and max_tokens becomes the profile's maxOutputTokens", async () => {
    const model = await createChatModel(
      await resolved({
        LLM_VENDOR: 'openai',
        LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        LLM_MODEL: 'my-local-llama',
        LLM_MAX_TOKENS: '512',
      }),
    );
    expect(contextWindowOf(model)).toEqual({ tokens: DEFAULT_CONTEXT_WINDOWS.openai, source: 'default' });
    expect(model.profile).toMatchObject({ maxInputTokens: 128_000, maxOutputTokens: 512 });
  });

  it("asks Ollama's /api/show for num_ctx and pins it on the profile", async () => {
    const server = await ollamaShow('stop "<|eot|>"\nnum_ctx 8192\ntemperature 0.2');
    const config = await resolved({ LLM_VENDOR: 'ollama', LLM_BASE_URL: server.url, LLM_MODEL: 'qwen3' });
    const model = await createChatModel(config);
    expect(contextWindowOf(model)).toEqual({ tokens: 4096, source: 'default' });
    expect(await probeContextWindow(model, config)).toEqual({ tokens: 8192, source: 'server' });
    expect(model.profile.maxInputTokens).toBe(8192);
    expect(server.asked).toEqual([{ url: '/api/show', body: { model: 'qwen3' } }]);
  });

  it("keeps Ollama's default when the model sets no num_ctx or the server cannot be asked", async () => {
    const plain = await ollamaShow(undefined);
    const config = await resolved({ LLM_VENDOR: 'ollama', LLM_BASE_URL: plain.url });
    const model = await createChatModel(config);
    expect(await probeContextWindow(model, config)).toEqual({ tokens: 4096, source: 'default' });
    const down = { ...config, base_url: 'http://127.0.0.1:9' };
    expect(await probeContextWindow(await createChatModel(down), down)).toEqual({
      tokens: 4096,
      source: 'default',
    });
  });
});
