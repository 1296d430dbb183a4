import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpus } from './corpus.js';
import { mutationSuite, type Source } from './mutate.js';

/** Every SKILL.md of the shared corpus (original birdie skills, Agent Skills, the reference validator's edge cases). */
function sources(): Source[] {
  const out: Source[] = [];
  const add = (prefix: string, folder: string) => {
    for (const name of ['SKILL.md', 'SKILL.MD', 'skill.md']) {
      const file = join(folder, name);
      if (existsSync(file)) {
        out.push({ name: `${prefix}-${out.length}`, text: readFileSync(file, 'utf8') });
        return;
      }
    }
  };
  for (const set of ['birdie', 'agentskills']) {
    for (const name of readdirSync(join(corpus, set)).sort()) add(set, join(corpus, set, name));
  }
  const cases = join(corpus, 'skills-ref');
  for (const name of readdirSync(cases).sort()) {
    if (!/^\d\d-/.test(name)) continue;
    for (const skill of readdirSync(join(cases, name))) add('ref', join(cases, name, skill));
  }
  return out;
}

mutationSuite('mutations of the shared corpus', sources, { count: 400, seed: 2026 });
