import { describe, expect, it } from 'vitest';

describe('public exports', () => {
  it('are exactly these', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'BUILTIN_ENTRYPOINTS',
      'DEFAULT_KILL_GRACE_MS',
      'DEFAULT_MAX_OUTPUT_BYTES',
      'DEFAULT_TIMEOUT_MS',
      'EntrypointError',
      'checkEntrypoint',
      'configureContainerRuntime',
      'configureNodeTools',
      'configureProcessGuard',
      'configureSandbox',
      'confinementOf',
      'containerRuntimeStatus',
      'isEntrypointError',
      'processGuardStatus',
      'redactUrl',
      'registerScheme',
      'resolveEntrypoint',
      'sandboxStatus',
      'stopAllProcesses',
      'supportedSchemes',
      'unregisterScheme',
      'wrapServerCommand',
    ]);
  });
});
