import { describe, expect, it } from 'vitest';

describe('@birdie/providers public API', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'CONFIG_FIELDS',
      'DEFAULT_MAX_RETRIES',
      'DEFAULT_TIMEOUT_MS',
      'ENV_VARS',
      'ProviderError',
      'ScriptedChatModel',
      'VENDORS',
      'VENDOR_NAMES',
      'createChatModel',
      'createScriptedModel',
      'describeProvider',
      'isVendor',
      'loadScript',
      'parseScript',
      'resolveProviderConfig',
    ]);
  });
});
