import { mkdir, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTree } from '@birdie/test-utils';
import { HumanMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createChatModel,
  type ProviderConfig,
  resolveProviderConfig,
  ScriptedChatModel,
} from '../src/index.js';
import { type FixtureServer, loadFixture, startFixtureServer } from './contract/fixture-server.js';
import { rejection, useTempDir } from './helpers.js';

const dir = useTempDir('birdie-providers-langchain-');
let server: FixtureServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const plain = () => loadFixture(new URL('./fixtures/openai/plain.json', import.meta.url));
const langchain = async (fields: Record<string, unknown>): Promise<ProviderConfig> =>
  (await resolveProviderConfig({ env: {}, inline: JSON.stringify({ vendor: 'langchain', ...fields }) }))
    .config;

/** This package's own @langchain/core, linked into an integrations folder so a package there shares it. */
const CORE = dirname(fileURLToPath(import.meta.resolve('@langchain/core/package.json')));

/**
 * An integrations folder as `npm install --prefix DIR …` leaves it: a package.json and node_modules, here with a
 * made-up integration package whose chat model answers with what it was constructed with.
 */
async function integrations(name: string, className: string): Promise<string> {
  const root = join(dir.path, 'integrations');
  await writeTree(root, {
    'package.json': JSON.stringify({ private: true, dependencies: { [name]: '1.0.0' } }),
    [`node_modules/${name}/package.json`]: JSON.stringify({
      name,
      type: 'module',
      exports: { '.': { types: './index.d.ts', import: './index.js', require: './index.cjs' } },
    }),
    [`node_modules/${name}/index.js`]: `import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage } from '@langchain/core/messages';
export class ${className} extends BaseChatModel {
  constructor(fields) { super(fields); this.fields = fields; }
  _llmType() { return 'fake-integration'; }
  async _generate() {
    const text = JSON.stringify(this.fields);
    return { generations: [{ text, message: new AIMessage(text) }] };
  }
}
`,
  });
  await mkdir(join(root, 'node_modules', '@langchain'), { recursive: true });
  await symlink(CORE, join(root, 'node_modules', '@langchain', 'core'));
  return root;
}

describe('vendor langchain: initChatModel', () => {
  it('"provider:model" goes through initChatModel to the provider package, against a local server', async () => {
    server = await startFixtureServer(await plain());
    const config = await langchain({
      model: 'openai:gpt-4o-mini',
      api_key: 'sk-local',
      temperature: 0.2,
      options: { configuration: { baseURL: `${server.url}/v1` } },
    });
    const model = await createChatModel(config);
    const reply = await model.invoke([new HumanMessage('hi')]);
    expect(reply.text).toBe('Hello from the fixture.');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.2 });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-local');
  });

  it('a model name it can place needs no prefix; one it cannot is explained', async () => {
    server = await startFixtureServer(await plain());
    const model = await createChatModel(
      await langchain({
        model: 'gpt-4o-mini',
        api_key: 'k',
        options: { configuration: { baseURL: `${server.url}/v1` } },
      }),
    );
    expect((await model.invoke('hi')).text).toBe('Hello from the fixture.');
    const error = await rejection(createChatModel(await langchain({ model: 'mystery-model' })));
    expect(error.code).toBe('config-invalid');
    expect(error.message).toMatch(
      /cannot tell the provider of model "mystery-model"; write it as "provider:model" with one of: openai, anthropic/,
    );
  });

  it('a provider package that is nowhere gives the command that installs it where birdie looks', async () => {
    const folder = join(dir.path, 'my integrations');
    const error = await rejection(
      createChatModel(await langchain({ model: 'groq:llama-3.3-70b' }), { integrationsDir: folder }),
    );
    expect(error.code).toBe('missing-package');
    expect(error.packageName).toBe('@langchain/groq');
    expect(error.message).toBe(
      `@langchain/groq is not installed: run \`npm install --prefix '${folder}' @langchain/groq\` (birdie imports LangChain integrations from its own install, then from ${folder})`,
    );
    const bare = await rejection(createChatModel(await langchain({ model: 'groq:llama-3.3-70b' })));
    expect(bare.message).toBe('@langchain/groq is not installed: run `npm install @langchain/groq`');
  });

  it('a provider package installed only in the integrations folder is constructed as initChatModel would', async () => {
    const folder = await integrations('@langchain/groq', 'ChatGroq');
    const model = await createChatModel(await langchain({ model: 'groq:llama-3.3-70b', temperature: 0 }), {
      integrationsDir: folder,
    });
    expect(JSON.parse((await model.invoke('hi')).text)).toEqual({
      model: 'llama-3.3-70b',
      temperature: 0,
      maxRetries: 2,
      timeout: 60_000,
    });
  });
});

describe('vendor langchain: module and class', () => {
  it('constructs a class of an installed integration with the options', async () => {
    server = await startFixtureServer(await plain());
    const config = await langchain({
      module: '@langchain/openai',
      class: 'ChatOpenAI',
      options: { model: 'gpt-4o-mini', apiKey: 'sk-x', configuration: { baseURL: `${server.url}/v1` } },
    });
    expect(config.model).toBe('ChatOpenAI');
    const model = await createChatModel(config);
    expect((await model.invoke('hi')).text).toBe('Hello from the fixture.');
    expect(server.requests[0]?.body).toMatchObject({ model: 'gpt-4o-mini' });
  });

  it('finds a package of the integrations folder, passing model and options; a wrong class lists the ones there are', async () => {
    const folder = await integrations('birdie-fake-chat', 'ChatFake');
    const config = await langchain({
      module: 'birdie-fake-chat',
      class: 'ChatFake',
      model: 'm1',
      options: { depth: 3 },
    });
    const model = await createChatModel(config, { integrationsDir: folder });
    expect(JSON.parse((await model.invoke('hi')).text)).toEqual({
      model: 'm1',
      maxRetries: 2,
      timeout: 60_000,
      depth: 3,
    });
    const wrong = await rejection(
      createChatModel(await langchain({ module: 'birdie-fake-chat', class: 'ChatFaker' }), {
        integrationsDir: folder,
      }),
    );
    expect(wrong.message).toBe('birdie-fake-chat exports no class "ChatFaker"; it has ChatFake');
  });

  it('module and class come together, and only for this vendor', async () => {
    expect((await rejection(langchain({ module: '@langchain/openai' }))).message).toMatch(
      /^class is required with module/,
    );
    expect((await rejection(langchain({}))).message).toMatch(/^model is required for langchain/);
    const other = await rejection(
      resolveProviderConfig({ env: {}, inline: '{"vendor":"openai","api_key":"k","class":"ChatOpenAI"}' }),
    );
    expect(other.message).toBe(
      'class is only used by the langchain vendor, not openai (from inline LLM_PROVIDER_CONFIG)',
    );
  });
});

describe('a chat model instance instead of a config', () => {
  it('is returned as it is', async () => {
    const model = new ScriptedChatModel([{ text: 'x' }]);
    expect(await createChatModel(model)).toBe(model);
  });
});
