import { join } from 'node:path';
import type { AgentDefinition, Skill, SkillCache } from '@birdie/skill-parser';
import { expect, it } from 'vitest';
import { tempDir } from '../test/helpers.js';
import { writeSkill } from '../test/skill-files.js';
import { loadRegistry } from './registry.js';

it("keeps the skills of the user's chosen folders in the cache, never a project folder's", async (t) => {
  const root = await tempDir(t);
  const dirs = [
    { path: join(root, 'bundled'), layer: 'bundled' as const },
    { path: join(root, 'user'), layer: 'user' as const },
    {
      path: join(root, 'repo', '.birdie', 'skills'),
      layer: 'project' as const,
      workspace: join(root, 'repo'),
    },
  ];
  await writeSkill(dirs[0]!.path, { name: 'alpha', tools: ['read_file'] });
  await writeSkill(dirs[1]!.path, { name: 'beta' });
  await writeSkill(dirs[2]!.path, { name: 'gamma' });
  const kept = new Map<string, Skill | AgentDefinition>();
  const skillCache: SkillCache = { get: (key) => kept.get(key), set: (key, skill) => kept.set(key, skill) };

  const first = await loadRegistry({ dirs, skillCache, trust: () => true });
  expect([...kept.values()].map((s) => s.name).sort()).toEqual(['alpha', 'beta']);
  const again = await loadRegistry({ dirs, skillCache, trust: () => true });
  expect(again.current().skills).toEqual(first.current().skills);
  expect(again.current().skills.map((s) => s.name)).toEqual(['alpha', 'beta', 'gamma']);
});
