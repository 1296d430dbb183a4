import { describe, expect, it } from 'vitest';

describe('@birdie/providers public API', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'CONFIG_FIELDS',
      'CONFIG_SECTIONS',
      'DEFAULT_CONTEXT_WINDOWS',
      'DEFAULT_MAX_RETRIES',
      'DEFAULT_TIMEOUT_MS',
      'DEFAULT_VENDOR',
      'ENV_VARS',
      'MODEL_TIERS',
      'PROGRAM_FIELDS',
      'ProviderError',
      'ScriptedChatModel',
      'VENDORS',
      'VENDOR_NAMES',
      'checkCredentials',
      'closeChatModel',
      'contextWindowOf',
      'createChatModel',
      'createScriptedModel',
      'describeProvider',
      'isChatModel',
      'isModelTier',
      'isVendor',
      'loadScript',
      'parseConfigFile',
      'parseScript',
      'probeContextWindow',
      'readConfigFile',
      'resolveProviderConfig',
    ]);
  });
});
