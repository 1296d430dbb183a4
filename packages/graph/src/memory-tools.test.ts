import { readFileSync } from 'node:fs';
import { BUILTIN_ENTRYPOINTS } from '@birdie/entrypoints';
import { parseSkill } from '@birdie/skill-parser';
import { describe, expect, it } from 'vitest';
import { MEMORY_BUILTINS } from './memory-tools.js';

const bundled = new URL('../../../skills/memory/SKILL.md', import.meta.url);

describe('builtin tools', () => {
  it('implement exactly the names @birdie/entrypoints lets a skill switch on', () => {
    expect(Object.keys(MEMORY_BUILTINS).sort()).toEqual([...BUILTIN_ENTRYPOINTS].sort());
  });

  it('accept what the bundled memory skill documents (its schemas are the builtins’ own)', () => {
    const { skill } = parseSkill(readFileSync(bundled, 'utf8'), { path: bundled.pathname });
    expect(skill?.enabledByDefault).toBe(false);
    for (const tool of skill?.tools ?? []) {
      expect(tool.entrypoint).toBe(`builtin:${tool.name}`);
      expect(tool.schema).toEqual(MEMORY_BUILTINS[tool.name]?.parameters);
    }
    expect(skill?.tools.map((t) => t.name)).toEqual(['remember', 'recall', 'forget']);
  });
});
