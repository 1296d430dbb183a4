import { expect, it } from 'vitest';

it('pins the public exports', async () => {
  expect(Object.keys(await import('./index.js')).sort()).toEqual([
    'ENTRYPOINT_SHAPE',
    'MAX_RESOURCES',
    'MAX_RESOURCE_DEPTH',
    'MAX_SETEXT_HEADINGS',
    'MAX_SKILL_FILE_BYTES',
    'MAX_YAML_ALIAS_COUNT',
    'MAX_YAML_DEPTH',
    'MIN_EVERY_SECONDS',
    'MODEL_TIER',
    'MODEL_TIERS',
    'MODEL_VENDORS',
    'RULES',
    'SKILL_FILE_NAMES',
    'SOURCE',
    'STANDARD_RULES',
    'TOOL_NAME',
    'createMessage',
    'cronProblem',
    'discoverAgents',
    'discoverSkills',
    'knownTimeZone',
    'loadAgentFile',
    'loadSkillFile',
    'modelProblem',
    'parseAgent',
    'parseDuration',
    'parseSkill',
    'resolveArg',
    'schemaProblems',
    'watchProblem',
  ]);
});

it('pins the exports of @birdie/skill-parser/unified', async () => {
  expect(Object.keys(await import('./unified.js')).sort()).toEqual(['remarkSkill', 'skillProcessor']);
});

it('pins the exports of @birdie/skill-parser/json-schema', async () => {
  expect(Object.keys(await import('./json-schema.js')).sort()).toEqual(['schemaProblems']);
});

it('pins the exports of @birdie/skill-parser/visible-text', async () => {
  expect(Object.keys(await import('./visible-text.js')).sort()).toEqual(['escapeInvisible']);
});
