import { describe, expect, it } from 'vitest';
import { parseConfigFile, resolveProviderConfig } from '../src/index.js';
import { rejection, useTempDir } from './helpers.js';

const dir = useTempDir('birdie-providers-tiers-');
const PATH = '/home/me/.birdie/config.json';
const ANTHROPIC_KEY = 'sk-ant-SECRET-tier-0000';
const OPENAI_KEY = 'sk-proj-SECRET-tier-1111';

const failure = (text: string) => {
  try {
    parseConfigFile(text, PATH);
  } catch (error) {
    return error as { code: string; message: string; line?: number; column?: number; field?: string };
  }
  throw new Error('parseConfigFile accepted the text');
};

const tiered = {
  provider: {
    vendor: 'anthropic',
    model: 'claude-sonnet-4-5',
    api_key: ANTHROPIC_KEY,
    models: {
      fast: { model: 'claude-haiku-4-5' },
      strong: { vendor: 'openai', model: 'gpt-5', max_tokens: 4000 },
    },
  },
};

describe('provider.models: tiers in the config file', () => {
  it('reads tiers as provider configs of their own', () => {
    const file = parseConfigFile(JSON.stringify(tiered), PATH);
    expect(file.provider.models).toEqual(tiered.provider.models);
  });

  it('refuses an unknown tier, an unknown field and a bad value inside a tier, with line and column', () => {
    const text = (models: unknown) => JSON.stringify({ provider: { vendor: 'openai', models } }, null, 2);
    const tier = failure(text({ quick: { model: 'x' } }));
    expect(tier).toMatchObject({ code: 'config-invalid', line: 5, column: 7, field: 'models.quick' });
    expect(tier.message).toContain(
      'unknown model tier "provider.models.quick" (allowed: fast, default, strong)',
    );

    const field = failure(text({ fast: { modle: 'x' } }));
    expect(field).toMatchObject({ code: 'config-invalid', line: 6, column: 9, field: 'models.fast.modle' });
    expect(field.message).toContain('unknown field "provider.models.fast.modle"');

    const value = failure(text({ strong: { temperature: 7 } }));
    expect(value).toMatchObject({ line: 6, column: 9, field: 'models.strong.temperature' });
    expect(value.message).toContain('provider.models.strong.temperature must be between 0 and 2 (got 7)');

    const vendor = failure(text({ fast: { vendor: 'openia' } }));
    expect(vendor).toMatchObject({ code: 'unknown-vendor', line: 6, column: 9, field: 'models.fast.vendor' });

    const nested = failure(text({ fast: { models: {} } }));
    expect(nested.message).toContain('unknown field "provider.models.fast.models"');
    expect(failure(text([])).message).toContain('provider.models must be a JSON object');
  });

  it('resolves a tier over the section: its vendor, key and other fields come from below unless it names another vendor', async () => {
    const saved = await dir.file('config.json', JSON.stringify(tiered));
    const base = await resolveProviderConfig({ env: {}, saved });
    expect(base.config).toMatchObject({
      vendor: 'anthropic',
      model: 'claude-sonnet-4-5',
      api_key: ANTHROPIC_KEY,
    });
    expect(base.tiers).toEqual(['fast', 'strong']);

    const fast = await resolveProviderConfig({ env: {}, saved, tier: 'fast' });
    expect(fast.config).toMatchObject({
      vendor: 'anthropic',
      model: 'claude-haiku-4-5',
      api_key: ANTHROPIC_KEY,
    });
    expect(fast.sources.model).toBe(`file ${saved} (models.fast)`);
    expect(fast.sources.api_key).toBe(`file ${saved}`);

    // Another vendor: nothing of the anthropic section crosses over; the key comes from that vendor's variable.
    const strong = await resolveProviderConfig({
      env: { OPENAI_API_KEY: OPENAI_KEY },
      saved,
      tier: 'strong',
    });
    expect(strong.config).toMatchObject({
      vendor: 'openai',
      model: 'gpt-5',
      api_key: OPENAI_KEY,
      max_tokens: 4000,
    });
    expect(strong.sources.api_key).toBe('env OPENAI_API_KEY');
    expect(strong.ignored.map((i) => i.field)).toEqual(expect.arrayContaining(['model', 'api_key']));
    const missing = await rejection(resolveProviderConfig({ env: {}, saved, tier: 'strong' }));
    expect(missing.code).toBe('missing-api-key');
  });

  it('models.default, when given, is the model without a tier; `tier: null` leaves every tier out', async () => {
    const saved = await dir.file(
      'config.json',
      JSON.stringify({ provider: { ...tiered.provider, models: { default: { model: 'claude-opus-4-1' } } } }),
    );
    expect((await resolveProviderConfig({ env: {}, saved })).config.model).toBe('claude-opus-4-1');
    expect((await resolveProviderConfig({ env: {}, saved, tier: 'default' })).config.model).toBe(
      'claude-opus-4-1',
    );
    const named = await resolveProviderConfig({
      env: {},
      saved,
      inline: JSON.stringify({ vendor: 'anthropic', model: 'claude-haiku-4-5' }),
      tier: null,
    });
    expect(named.config.model).toBe('claude-haiku-4-5');
  });

  it('a tier no layer defines is unknown-tier; the highest file that defines a tier wins', async () => {
    const saved = await dir.file('config.json', JSON.stringify(tiered));
    const none = await dir.file('none.json', '{}');
    const env = { OPENAI_API_KEY: OPENAI_KEY };
    expect((await resolveProviderConfig({ env, file: none, tier: 'default' })).tiers).toEqual([]);
    const error = await rejection(resolveProviderConfig({ env, file: none, tier: 'strong' }));
    expect(error).toMatchObject({ code: 'unknown-tier', field: 'models.strong' });
    expect(error.message).toContain('No model tier "strong"');

    const file = await dir.file(
      'override.json',
      JSON.stringify({ provider: { models: { fast: { model: 'claude-3-5-haiku-latest' } } } }),
    );
    const fast = await resolveProviderConfig({ env: {}, file, saved, tier: 'fast' });
    expect(fast.config.model).toBe('claude-3-5-haiku-latest');
    expect(fast.tiers).toEqual(['fast', 'strong']);
  });
});
