import { describe, expect, it } from 'vitest';
import { resolveProviderConfig } from '../src/index.js';
import { rejection, useTempDir } from './helpers.js';

const ANTHROPIC_KEY = 'sk-ant-api03-SAVEDSAVEDSAVED-0123456789';
const OPENAI_KEY = 'sk-proj-ENVENVENVENV-0123456789';
const LOCAL = 'http://127.0.0.1:9/v1';
const dir = useTempDir('birdie-providers-vendor-');

const savedAnthropic = (extra: object = {}) =>
  dir.file(
    'config.json',
    JSON.stringify({
      provider: { vendor: 'anthropic', model: 'claude-sonnet-4-5', api_key: ANTHROPIC_KEY, ...extra },
    }),
  );

describe('a key, a model and a base URL never cross vendors', () => {
  it('an inline config naming openai takes nothing from a saved anthropic file (the reported case)', async () => {
    const saved = await savedAnthropic();
    const { config, sources, ignored } = await resolveProviderConfig({
      env: { LLM_PROVIDER_CONFIG: JSON.stringify({ vendor: 'openai', base_url: LOCAL }) },
      saved,
    });
    expect(config).toEqual({
      vendor: 'openai',
      model: 'gpt-4o-mini',
      base_url: LOCAL,
      timeout: 60_000,
      max_retries: 2,
    });
    expect(sources).toMatchObject({ vendor: 'inline LLM_PROVIDER_CONFIG', model: 'default' });
    expect(ignored).toEqual([
      { field: 'model', source: `file ${saved}`, vendor: 'anthropic' },
      { field: 'api_key', source: `file ${saved}`, vendor: 'anthropic' },
    ]);
    expect(JSON.stringify(ignored)).not.toContain(ANTHROPIC_KEY);
  });

  it('the same inline config under a --config file naming anthropic: the file wins, the inline URL is left out', async () => {
    const file = await savedAnthropic();
    const { config, ignored } = await resolveProviderConfig({
      env: { LLM_PROVIDER_CONFIG: JSON.stringify({ vendor: 'openai', base_url: LOCAL }) },
      file,
    });
    expect(config).toMatchObject({
      vendor: 'anthropic',
      api_key: ANTHROPIC_KEY,
      base_url: 'https://api.anthropic.com',
    });
    expect(ignored).toEqual([{ field: 'base_url', source: 'inline LLM_PROVIDER_CONFIG', vendor: 'openai' }]);
  });

  it('LLM_VENDOR and the vendor key variable beat the saved file', async () => {
    const saved = await savedAnthropic();
    const { config, sources } = await resolveProviderConfig({
      env: { LLM_VENDOR: 'openai', OPENAI_API_KEY: OPENAI_KEY },
      saved,
    });
    expect(config).toMatchObject({ vendor: 'openai', model: 'gpt-4o-mini', api_key: OPENAI_KEY });
    expect(sources).toMatchObject({ vendor: 'env LLM_VENDOR', api_key: 'env OPENAI_API_KEY' });
  });

  it('a key variable never chooses the vendor: OPENAI_API_KEY does not replace a saved anthropic config', async () => {
    const saved = await savedAnthropic();
    const { config, sources } = await resolveProviderConfig({
      env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: LOCAL },
      saved,
    });
    expect(config).toMatchObject({
      vendor: 'anthropic',
      api_key: ANTHROPIC_KEY,
      base_url: 'https://api.anthropic.com',
    });
    expect(sources).toMatchObject({ vendor: `file ${saved}`, api_key: `file ${saved}` });
  });

  it("the vendor's own key variable beats the saved key of the same vendor", async () => {
    const saved = await dir.file(
      'config.json',
      JSON.stringify({ vendor: 'openai', api_key: 'sk-saved-000000' }),
    );
    const { config, sources } = await resolveProviderConfig({ env: { OPENAI_API_KEY: OPENAI_KEY }, saved });
    expect(config.api_key).toBe(OPENAI_KEY);
    expect(sources.api_key).toBe('env OPENAI_API_KEY');
  });

  it('LLM_MODEL without LLM_VENDOR belongs to the vendor below it: it changes the saved model', async () => {
    const saved = await savedAnthropic();
    const { config, sources } = await resolveProviderConfig({
      env: { LLM_MODEL: 'claude-haiku-4-5' },
      saved,
    });
    expect(config).toMatchObject({ vendor: 'anthropic', model: 'claude-haiku-4-5', api_key: ANTHROPIC_KEY });
    expect(sources.model).toBe('env LLM_MODEL');
  });

  it('…and is left out when a higher layer names another vendor', async () => {
    const saved = await savedAnthropic();
    const file = await dir.file('openai.json', JSON.stringify({ vendor: 'openai', base_url: LOCAL }));
    const { config, ignored } = await resolveProviderConfig({
      env: { LLM_MODEL: 'claude-haiku-4-5', LLM_TEMPERATURE: '0.3' },
      file,
      saved,
    });
    expect(config).toMatchObject({ vendor: 'openai', model: 'gpt-4o-mini', base_url: LOCAL });
    expect(config.temperature).toBeUndefined();
    expect(ignored).toEqual([
      { field: 'model', source: 'env LLM_MODEL', vendor: 'anthropic' },
      { field: 'temperature', source: 'env LLM_TEMPERATURE', vendor: 'anthropic' },
      { field: 'model', source: `file ${saved}`, vendor: 'anthropic' },
      { field: 'api_key', source: `file ${saved}`, vendor: 'anthropic' },
    ]);
  });

  it('a vendor-less inline config adds to the vendor below it (here a base URL for anthropic)', async () => {
    const saved = await savedAnthropic();
    const { config } = await resolveProviderConfig({
      env: { LLM_PROVIDER_CONFIG: JSON.stringify({ base_url: 'http://127.0.0.1:9' }) },
      saved,
    });
    expect(config).toMatchObject({
      vendor: 'anthropic',
      api_key: ANTHROPIC_KEY,
      base_url: 'http://127.0.0.1:9',
    });
  });

  it('a file that names no vendor belongs to the default vendor: its key is not sent to LLM_VENDOR', async () => {
    const saved = await dir.file('config.json', JSON.stringify({ api_key: OPENAI_KEY }));
    const error = await rejection(resolveProviderConfig({ env: { LLM_VENDOR: 'anthropic' }, saved }));
    expect(error.code).toBe('missing-api-key');
    expect(error.message).toBe(
      `No API key for anthropic: set ANTHROPIC_API_KEY (or "api_key" in the config file). The api_key in file ${saved} is for openai and is never sent to anthropic`,
    );
    expect(error.message).not.toContain(OPENAI_KEY.slice(0, 8));
  });

  it("another vendor's base URL variable is not read", async () => {
    const { config } = await resolveProviderConfig({
      env: { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_BASE_URL: LOCAL, OLLAMA_HOST: LOCAL },
    });
    expect(config.base_url).toBe('https://api.openai.com/v1');
  });

  it('with no vendor named anywhere, a missing key names the key variables that are set', async () => {
    const error = await rejection(
      resolveProviderConfig({ env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, GEMINI_API_KEY: 'g-000000000' } }),
    );
    expect(error.message).toBe(
      'No API key for openai: set OPENAI_API_KEY (or "api_key" in the config file). ANTHROPIC_API_KEY is set: LLM_VENDOR=anthropic uses it; GEMINI_API_KEY is set: LLM_VENDOR=gemini uses it',
    );
  });
});
