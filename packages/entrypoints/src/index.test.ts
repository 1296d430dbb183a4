import { describe, expect, it } from 'vitest';

describe('public exports', () => {
  it('are exactly these', async () => {
    expect(Object.keys(await import('./index.js')).sort()).toEqual([
      'BUILTIN_ENTRYPOINTS',
      'CODE_TAKING_PROGRAMS',
      'COMMAND_RUNNERS',
      'DEFAULT_KILL_GRACE_MS',
      'DEFAULT_MAX_OUTPUT_BYTES',
      'DEFAULT_TIMEOUT_MS',
      'EntrypointError',
      'PROTECTED_WORKSPACE_PATHS',
      'checkEntrypoint',
      'configureContainerRuntime',
      'configureNodeTools',
      'configureProcessGuard',
      'configureSandbox',
      'confinementOf',
      'containerRuntimeStatus',
      'dangerousArguments',
      'dangerousOption',
      'inspectEntrypoint',
      'isCodeArgument',
      'isDangerousOption',
      'isEntrypointError',
      'nestedCommandIndex',
      'processGuardStatus',
      'programEntry',
      'readArgv',
      'readCommandLine',
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
