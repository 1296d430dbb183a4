import { expect, it } from 'vitest';

it('pins the public exports', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toEqual([
    'ENTRYPOINT_SHAPE',
    'MAX_RESOURCES',
    'MAX_RESOURCE_DEPTH',
    'MAX_SKILL_FILE_BYTES',
    'RULES',
    'SKILL_FILE_NAMES',
    'SOURCE',
    'TOOL_NAME',
    'createMessage',
    'discoverSkills',
    'loadSkillFile',
    'parseSkill',
    'resolveArg',
  ]);
});
