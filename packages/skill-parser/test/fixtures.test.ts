import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSkillFile } from '../src/index.js';
import { brief } from './helpers.js';

const root = fileURLToPath(new URL('./fixtures', import.meta.url));
// `agents/` holds the agent-file fixtures (agent-fixtures.test.ts).
const cases = readdirSync(root)
  .filter((name) => name !== 'agents')
  .sort();

interface Expected {
  messages: string[];
  skill: Record<string, unknown> | null;
}

/** `<dir>` in expected values stands for the fixture's folder. */
function withDir(value: unknown, dir: string): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll('<dir>', dir));
}

describe('fixtures (test/fixtures/<case>/SKILL.md → expected.json)', () => {
  it.each(cases)('%s', async (name) => {
    const dir = join(root, name);
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected;
    const result = await loadSkillFile(join(dir, 'SKILL.md'));
    expect(result.messages.map(brief)).toEqual(expected.messages);
    for (const message of result.messages) {
      expect(message.source).toBe('skill-parser');
      expect(message.file).toBe(join(dir, 'SKILL.md'));
      expect(String(message)).toMatch(
        new RegExp(`^${join(dir, 'SKILL.md')}:${message.line}:${message.column}`),
      );
    }
    if (expected.skill === null) {
      expect(result.skill).toBeUndefined();
      expect(result.messages.some((m) => m.fatal === true)).toBe(true);
      return;
    }
    expect(result.skill).toBeDefined();
    const skill = withDir(expected.skill, dir) as Record<string, unknown>;
    // expected.json itself sits in the folder, so it is listed as a resource: leave it out of the comparison.
    const actual = {
      ...result.skill!,
      resources: result.skill!.resources.filter((r) => r !== 'expected.json'),
    };
    expect(actual).toMatchObject(skill);
    if (skill.mcpServer) expect(result.skill!.mcpServer).toEqual(skill.mcpServer);
    expect(result.skill!.file).toBe(join(dir, 'SKILL.md'));
    expect(result.skill!.dir).toBe(dir);
    expect(JSON.parse(JSON.stringify(result.skill))).toEqual(result.skill);
  });
});
