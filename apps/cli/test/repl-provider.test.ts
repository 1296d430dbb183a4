import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { TEST_SKILLS } from './helpers/env.js';
import { useReplSandbox } from './helpers/repl-sandbox.js';

/** A local port nothing listens on (taken, then released): connecting to it is refused at once. */
async function refusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** An OpenAI-compatible local server given inline, as people run llama.cpp or vLLM: a base URL and no key. */
async function inlineProvider(): Promise<{ env: NodeJS.ProcessEnv; baseUrl: string }> {
  const baseUrl = `http://127.0.0.1:${await refusedPort()}/v1`;
  const config = { vendor: 'openai', base_url: baseUrl, model: 'local-model', max_retries: 0 };
  return {
    baseUrl,
    env: { LLM_PROVIDER_CONFIG: JSON.stringify(config), LLM_VENDOR: undefined, OPENAI_API_KEY: undefined },
  };
}

const repl = useReplSandbox();

describe('a provider from LLM_PROVIDER_CONFIG with a base_url (compiled CLI in a terminal)', {
  timeout: 90_000,
}, () => {
  it('/model vendor:model switches, for the model in use and another, and keeps the base_url', async () => {
    const { env, baseUrl } = await inlineProvider();
    const t = repl.start([], { env });
    await t.expect('/help for commands');
    await t.submit('/model openai:local-model');
    await t.expect('✓ model: openai:local-model from the next turn');
    await t.submit('/model openai:other-model');
    await t.expect('✓ model: openai:other-model from the next turn');
    // the switched model is asked at the same server: its refusal names that server
    await t.submit('hello');
    await t.expect(`could not be reached at ${baseUrl}`, 30_000);
    await t.prompt();
    t.write('\x04');
    expect(await t.exited).toBe(0);
  });

  it('a refused connection names the base_url and the hint with tools enabled too', async () => {
    const { env, baseUrl } = await inlineProvider();
    const hint = `openai could not be reached at ${baseUrl}: nothing is listening there (connection refused); check that the server is running and its address (base_url)`;
    const plain = repl.start(['run', 'hello'], { env });
    expect(await plain.exited).toBe(1);
    expect(plain.text).toContain(hint);
    const tools = repl.start(['run', 'hello', '--skills-dir', TEST_SKILLS, '--enable', 'echoer'], { env });
    expect(await tools.exited).toBe(1);
    expect(tools.text).toContain(hint);
  });
});
