import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rejection, useTempDir } from '../test/helpers.js';
import { describeProvider } from './describe.js';
import { resolveProviderConfig } from './resolve-config.js';
import { VENDOR_NAMES } from './vendors.js';

const KEY = 'sk-proj-SECRETSECRET-0123456789';
const dir = useTempDir('birdie-providers-config-');

const failure = (input: Parameters<typeof resolveProviderConfig>[0]) =>
  rejection(resolveProviderConfig(input));

describe('resolveProviderConfig: precedence', () => {
  it('uses defaults for everything not set, with the vendor key from its env var', async () => {
    const { config, sources } = await resolveProviderConfig({ env: { OPENAI_API_KEY: KEY } });
    expect(config).toEqual({
      vendor: 'openai',
      model: 'gpt-4o-mini',
      api_key: KEY,
      base_url: 'https://api.openai.com/v1',
      timeout: 60_000,
      max_retries: 2,
    });
    expect(sources).toEqual({
      vendor: 'default',
      model: 'default',
      api_key: 'env OPENAI_API_KEY',
      base_url: 'default',
      timeout: 'default',
      max_retries: 'default',
    });
  });

  it('takes --config file > inline > env > saved file > defaults, field by field, within one vendor', async () => {
    const saved = await dir.file(
      'saved.json',
      JSON.stringify({
        provider: {
          vendor: 'anthropic',
          model: 'claude-from-saved',
          max_tokens: 900,
          timeout: 111,
          api_key: 'saved-key-0000',
        },
      }),
    );
    const file = await dir.file('provider.json', JSON.stringify({ vendor: 'anthropic', temperature: 0.5 }));
    const env = {
      LLM_MODEL: 'claude-from-env',
      LLM_TEMPERATURE: '1.5',
      LLM_MAX_RETRIES: '5',
      ANTHROPIC_API_KEY: KEY,
      LLM_PROVIDER_CONFIG: JSON.stringify({ model: 'claude-from-inline', timeout: 2000 }),
    };
    const { config, sources, ignored } = await resolveProviderConfig({ env, file, saved });
    expect(config).toMatchObject({
      vendor: 'anthropic',
      model: 'claude-from-inline',
      temperature: 0.5,
      max_tokens: 900,
      max_retries: 5,
      timeout: 2000,
      api_key: KEY,
      base_url: 'https://api.anthropic.com',
    });
    expect(sources).toMatchObject({
      vendor: `file ${file}`,
      model: 'inline LLM_PROVIDER_CONFIG',
      temperature: `file ${file}`,
      max_tokens: `file ${saved}`,
      max_retries: 'env LLM_MAX_RETRIES',
      timeout: 'inline LLM_PROVIDER_CONFIG',
      api_key: 'env ANTHROPIC_API_KEY',
      base_url: 'default',
    });
    expect(ignored).toEqual([]);
  });

  it('prefers an explicit inline string to LLM_PROVIDER_CONFIG and an api_key in config to the env var', async () => {
    const { config, sources } = await resolveProviderConfig({
      env: { LLM_PROVIDER_CONFIG: '{"model":"ignored"}', MISTRAL_API_KEY: 'env-key-000000' },
      inline: JSON.stringify({ vendor: 'mistral', model: 'mistral-small-latest', api_key: KEY }),
    });
    expect(config).toMatchObject({ vendor: 'mistral', model: 'mistral-small-latest', api_key: KEY });
    expect(sources.api_key).toBe('inline LLM_PROVIDER_CONFIG');
  });

  it('reads the vendor base URL variable, and LLM_BASE_URL over it', async () => {
    const ollama = await resolveProviderConfig({
      env: { LLM_VENDOR: 'ollama', OLLAMA_HOST: 'http://10.0.0.2:11434' },
    });
    expect(ollama.config.base_url).toBe('http://10.0.0.2:11434');
    expect(ollama.sources.base_url).toBe('env OLLAMA_HOST');
    const both = await resolveProviderConfig({
      env: {
        LLM_VENDOR: 'ollama',
        OLLAMA_HOST: 'http://10.0.0.2:11434',
        LLM_BASE_URL: 'http://127.0.0.1:8080',
      },
    });
    expect(both.config.base_url).toBe('http://127.0.0.1:8080');
    expect(both.sources.base_url).toBe('env LLM_BASE_URL');
  });

  it('ignores an invalid environment value that a higher source overrides', async () => {
    const { config } = await resolveProviderConfig({
      env: { LLM_VENDOR: 'nope', LLM_TEMPERATURE: 'hot', OPENAI_API_KEY: KEY },
      inline: '{"vendor":"openai","temperature":0.2}',
    });
    expect(config).toMatchObject({ vendor: 'openai', temperature: 0.2 });
  });

  it('resolves a relative script path against the config file, or the cwd otherwise', async () => {
    const path = await dir.file('scripted.json', '{"vendor":"scripted","script":"replies/demo.json"}');
    const fromFile = await resolveProviderConfig({ env: {}, file: path });
    expect(fromFile.config.script).toBe(join(dir.path, 'replies/demo.json'));
    const fromEnv = await resolveProviderConfig({
      env: { LLM_VENDOR: 'scripted', LLM_SCRIPT: 'demo.json' },
      cwd: dir.path,
    });
    expect(fromEnv.config).toMatchObject({
      vendor: 'scripted',
      model: 'scripted',
      script: join(dir.path, 'demo.json'),
    });
  });

  it("puts a named vendor:model above every layer, which keeps that vendor's base_url and key from inline JSON", async () => {
    const inline = JSON.stringify({ vendor: 'openai', base_url: 'http://127.0.0.1:8080/v1', model: 'local' });
    const { config, sources } = await resolveProviderConfig({
      env: { LLM_PROVIDER_CONFIG: inline, LLM_MODEL: 'from-env' },
      named: { vendor: 'openai', model: 'other' },
    });
    expect(config).toMatchObject({ vendor: 'openai', model: 'other', base_url: 'http://127.0.0.1:8080/v1' });
    expect(sources).toMatchObject({ model: 'named openai:other', base_url: 'inline LLM_PROVIDER_CONFIG' });
    // another vendor named: nothing of the openai layers crosses over
    const other = await resolveProviderConfig({
      env: { LLM_PROVIDER_CONFIG: inline, ANTHROPIC_API_KEY: KEY },
      named: { vendor: 'anthropic', model: 'claude-x' },
    });
    expect(other.config).toMatchObject({ vendor: 'anthropic', model: 'claude-x', api_key: KEY });
    expect(other.config.base_url).not.toContain('127.0.0.1');
    expect(other.ignored).toContainEqual({
      field: 'base_url',
      source: 'inline LLM_PROVIDER_CONFIG',
      vendor: 'openai',
    });
  });

  it('defaults the Azure api_version and reads it from AZURE_OPENAI_API_VERSION', async () => {
    const env = { LLM_VENDOR: 'azure', LLM_MODEL: 'my-gpt4o', AZURE_OPENAI_API_KEY: KEY };
    const endpoint = { AZURE_OPENAI_ENDPOINT: 'https://example.openai.azure.com' };
    const plain = await resolveProviderConfig({ env: { ...env, ...endpoint } });
    expect(plain.config).toMatchObject({
      api_version: '2024-10-21',
      base_url: 'https://example.openai.azure.com',
    });
    expect(plain.sources).toMatchObject({ api_version: 'default', base_url: 'env AZURE_OPENAI_ENDPOINT' });
    const versioned = await resolveProviderConfig({
      env: { ...env, ...endpoint, AZURE_OPENAI_API_VERSION: '2025-01-01-preview' },
    });
    expect(versioned.config.api_version).toBe('2025-01-01-preview');
  });
});

describe('resolveProviderConfig: errors', () => {
  it('lists the vendors for an unknown vendor, wherever it comes from', async () => {
    for (const input of [
      { env: { LLM_VENDOR: 'openia' } },
      { env: {}, inline: '{"vendor":"openia"}' },
      { env: { LLM_PROVIDER_CONFIG: '{"vendor":"openia"}' } },
    ]) {
      const error = await failure(input);
      expect(error.code).toBe('unknown-vendor');
      expect(error.message).toContain('"openia"');
      expect(error.message).toContain(VENDOR_NAMES.join(', '));
    }
    const path = await dir.file('bad-vendor.json', '{"vendor":"grok"}');
    const error = await failure({ env: {}, file: path });
    expect(error.message).toBe(
      `Unknown vendor "grok" in file ${path} at line 1, column 2; use one of: openai, azure, anthropic, mistral, gemini, ollama, scripted, acp, langchain`,
    );
  });

  it('names the env var when the key is missing', async () => {
    const cases: Array<[string, string]> = [
      ['openai', 'OPENAI_API_KEY'],
      ['anthropic', 'ANTHROPIC_API_KEY'],
      ['mistral', 'MISTRAL_API_KEY'],
      ['gemini', 'GOOGLE_API_KEY or GEMINI_API_KEY'],
      ['azure', 'AZURE_OPENAI_API_KEY'],
    ];
    for (const [vendor, names] of cases) {
      const error = await failure({ env: { LLM_VENDOR: vendor, LLM_MODEL: 'm' } });
      expect(error.code).toBe('missing-api-key');
      expect(error.message).toBe(`No API key for ${vendor}: set ${names} (or "api_key" in the config file)`);
      expect(error.envVar).toBe(names.split(' ')[0]);
    }
    await expect(resolveProviderConfig({ env: { LLM_VENDOR: 'ollama' } })).resolves.toBeDefined();
  });

  it('reports an unreadable file with its path', async () => {
    const path = join(dir.path, 'missing.json');
    const error = await failure({ env: {}, file: path });
    expect(error.code).toBe('config-file-unreadable');
    expect(error.message).toBe(`Cannot read config file ${path} (ENOENT)`);
    expect(error.file).toBe(path);
    const folder = await failure({ env: {}, file: dir.path });
    expect(folder.message).toBe(`Cannot read config file ${dir.path} (EISDIR)`);
  });

  it('reports invalid JSON with the path, line and column, never echoing the text', async () => {
    const path = await dir.file(
      'broken.json',
      `{\n  "vendor": "openai",\n  "api_key": "${KEY}",\n  "model": gpt-4o\n}\n`,
    );
    const error = await failure({ env: {}, file: path });
    expect(error.code).toBe('config-invalid-json');
    expect(error).toMatchObject({ file: path, line: 4, column: 12 });
    expect(error.message).toBe(
      `Invalid JSON in file ${path} at line 4, column 12: unexpected character "g", expected a value`,
    );
    expect(error.message).not.toContain(KEY.slice(0, 8));

    const trailing = await failure({ env: {}, inline: '{"vendor": "openai",}' });
    expect(trailing.message).toBe(
      'Invalid JSON in inline config at line 1, column 21: expected a double-quoted property name',
    );
    const truncated = await failure({ env: { LLM_PROVIDER_CONFIG: '{"vendor": "openai"' } });
    expect(truncated.message).toBe(
      'Invalid JSON in inline LLM_PROVIDER_CONFIG at line 1, column 20: unexpected end of input',
    );
  });

  it('names the field and the allowed values for invalid values', async () => {
    const cases: Array<[string, string]> = [
      ['{"temperature": 3}', 'temperature must be between 0 and 2 (got 3)'],
      ['{"temperature": "warm"}', 'temperature must be a number (0 to 2) (got "warm")'],
      ['{"max_tokens": 0}', 'max_tokens must be an integer from 1 to 1000000 (got 0)'],
      ['{"max_retries": 2.5}', 'max_retries must be an integer from 0 to 10 (got 2.5)'],
      ['{"timeout": -1}', 'timeout must be an integer from 1 to 3600000 (milliseconds) (got -1)'],
      ['{"base_url": "ftp://x"}', 'base_url must be an http:// or https:// URL (got "ftp://x")'],
      ['{"model": ""}', 'model must not be empty (got "")'],
      ['{"modle": "gpt-4o"}', 'unknown field "modle" (allowed: vendor, model, api_key, base_url'],
      ['[1, 2]', 'must be a JSON object'],
    ];
    for (const [inline, message] of cases) {
      const error = await failure({ env: { OPENAI_API_KEY: KEY }, inline });
      expect(error.code).toBe('config-invalid');
      expect(error.message).toContain(`Invalid config in inline config: ${message}`);
    }
    const env = await failure({ env: { OPENAI_API_KEY: KEY, LLM_TEMPERATURE: 'hot' } });
    expect(env.message).toBe(
      'Invalid config in env LLM_TEMPERATURE: temperature must be a number (0 to 2) (got "hot")',
    );
    expect(env).toMatchObject({ field: 'temperature', envVar: 'LLM_TEMPERATURE' });
    const retries = await failure({ env: { OPENAI_API_KEY: KEY, LLM_MAX_RETRIES: '11' } });
    expect(retries.message).toBe(
      'Invalid config in env LLM_MAX_RETRIES: max_retries must be an integer from 0 to 10 (got "11")',
    );
  });

  it('requires what a vendor cannot work without', async () => {
    const azureModel = await failure({ env: { LLM_VENDOR: 'azure', AZURE_OPENAI_API_KEY: KEY } });
    expect(azureModel).toMatchObject({ code: 'config-invalid', field: 'model' });
    const azureUrl = await failure({
      env: { LLM_VENDOR: 'azure', LLM_MODEL: 'dep', AZURE_OPENAI_API_KEY: KEY },
    });
    expect(azureUrl).toMatchObject({
      code: 'config-invalid',
      field: 'base_url',
      envVar: 'AZURE_OPENAI_ENDPOINT',
    });
    const script = await failure({ env: { LLM_VENDOR: 'scripted' } });
    expect(script).toMatchObject({ code: 'config-invalid', field: 'script', envVar: 'LLM_SCRIPT' });
    const stray = await failure({ env: { OPENAI_API_KEY: KEY, LLM_SCRIPT: 'x.json' } });
    expect(stray.message).toBe(
      'script is only used by the scripted vendor, not openai (from env LLM_SCRIPT)',
    );
    // langchain integrations name their address in their own option: a base_url would be ignored.
    const langchainUrl = await failure({
      env: {},
      inline: '{"vendor":"langchain","model":"openai:gpt-4o","base_url":"http://127.0.0.1:9/v1"}',
    });
    expect(langchainUrl).toMatchObject({ code: 'config-invalid', field: 'base_url', vendor: 'langchain' });
    expect(langchainUrl.message).toContain('"configuration":{"baseURL":"http://127.0.0.1:9/v1"}');
  });
});

describe('the key never leaks', () => {
  it('is absent from sources, describeProvider and every error message', async () => {
    const path = await dir.file('keyed.json', JSON.stringify({ vendor: 'openai', api_key: KEY }));
    const { config, sources } = await resolveProviderConfig({ env: {}, file: path });
    expect(config.api_key).toBe(KEY);
    expect(JSON.stringify(sources)).not.toContain(KEY);
    const description = describeProvider(config);
    expect(JSON.stringify(description)).not.toContain(KEY);
    expect(description.api_key).toBe('set');

    const errors = await Promise.all([
      failure({ env: {}, inline: `{"vendor":"openai","api_key":"${KEY}","temperature":9}` }),
      failure({ env: {}, inline: `{"vendor":"openai","api_key":"${KEY}" "model":"x"}` }),
      failure({ env: {}, inline: `{"vendor":"openai","api_key":${JSON.stringify(KEY.split(''))}}` }),
      failure({ env: { OPENAI_API_KEY: KEY }, inline: '{"vendor":"bogus"}' }),
    ]);
    for (const error of errors) {
      expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(KEY);
      expect(error.message).not.toContain(KEY.slice(0, 12));
    }
    expect(errors[2]!.message).toBe('Invalid config in inline config: api_key must be a string');
  });

  it('describes a provider without credentials in its URL', () => {
    const description = describeProvider({
      vendor: 'ollama',
      model: 'llama3.2',
      base_url: 'https://user:pa55word@ollama.example.com/api?token=abc#x',
      timeout: 1000,
      max_retries: 1,
    });
    expect(description).toEqual({
      vendor: 'ollama',
      model: 'llama3.2',
      label: 'ollama/llama3.2',
      package: '@langchain/ollama',
      base_url: 'https://ollama.example.com/api',
      api_key: 'not needed',
      timeout: 1000,
      max_retries: 1,
    });
  });
});
