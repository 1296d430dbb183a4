import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toEqual([
    'DEFAULT_MEMORY_FILE_NAMES',
    'MEMORY_FILE_NAME',
    'PROJECT_COMMANDS_DIR',
    'PROJECT_SETTINGS_FILE',
    'REGISTRY_RULES',
    'RegistryError',
    'SkillPolicy',
    'TRUST_DIGEST_VERSION',
    'checkAgents',
    'checkSkillTools',
    'declarationsDigest',
    'defaultAgentDirectories',
    'defaultSkillDirectories',
    'isRegistryError',
    'loadRegistry',
    'memoryFileNameProblem',
    'memoryFilePaths',
    'memoryFilePathsSync',
    'rawToolsNamedOnly',
    'skillIdentity',
    'snapshotFromSkills',
  ]);
});

it('names every rule id the package can emit', async () => {
  const { REGISTRY_RULES } = await import('./index.js');
  expect(Object.values(REGISTRY_RULES).sort()).toEqual([
    'agent-name-case-collision',
    'agent-names-itself',
    'agent-overridden',
    'approve-never-applies',
    'code-outside-workspace',
    'code-taking-command',
    'dir-holds-skill',
    'dir-not-directory',
    'dir-not-found',
    'dir-unreadable',
    'duplicate-agent-name',
    'duplicate-skill-name',
    'invalid-entrypoint',
    'scan-failed',
    'schema-mismatch',
    'skill-name-case-collision',
    'skill-overridden',
    'tool-name-clash',
    'tool-out-of-reach',
    'unknown-agent',
    'unknown-placeholder',
    'unknown-skill',
    'unknown-tool',
  ]);
});
