import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSkill } from '../dist/index.js';
import { generateSkills } from './generate.mjs';
const root = await mkdtemp(join(tmpdir(), 'sp-prof-'));
await generateSkills(root, 200);
const texts = [];
for (const d of await readdir(root))
  texts.push([join(root, d, 'SKILL.md'), await readFile(join(root, d, 'SKILL.md'), 'utf8')]);
const tools = texts.filter(([, t]) => t.includes('\n## Tools'));
for (let r = 0; r < 5; r++) for (const [p, t] of tools) parseSkill(t, { path: p });
const c = process.cpuUsage();
const t0 = performance.now();
for (let r = 0; r < 30; r++) for (const [p, t] of tools) parseSkill(t, { path: p });
const u = process.cpuUsage(c);
console.log(
  'per tool skill us (cpu)',
  ((u.user + u.system) / 30 / tools.length).toFixed(0),
  'wall',
  (((performance.now() - t0) * 1000) / 30 / tools.length).toFixed(0),
);
await rm(root, { recursive: true });
