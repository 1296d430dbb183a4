import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toEqual([
    'REGISTRY_RULES',
    'RegistryError',
    'SkillPolicy',
    'checkSkillTools',
    'declarationsDigest',
    'defaultSkillDirectories',
    'isRegistryError',
    'loadRegistry',
    'skillIdentity',
    'snapshotFromSkills',
  ]);
});

it('names every rule id the package can emit', async () => {
  const { REGISTRY_RULES } = await import('./index.js');
  expect(Object.values(REGISTRY_RULES).sort()).toEqual([
    'dir-not-directory',
    'dir-unreadable',
    'duplicate-skill-name',
    'invalid-entrypoint',
    'scan-failed',
    'schema-mismatch',
    'skill-name-case-collision',
    'skill-overridden',
    'tool-name-clash',
    'unknown-placeholder',
  ]);
});
