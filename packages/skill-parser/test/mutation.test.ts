import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mutationSuite, type Source } from './mutate.js';

/** The repository's bundled skills and this package's fixtures: every shape of SKILL.md the parser knows. */
function sources(): Source[] {
  const out: Source[] = [];
  for (const [prefix, url] of [
    ['skills', new URL('../../../skills', import.meta.url)],
    ['fixture', new URL('./fixtures', import.meta.url)],
  ] as const) {
    const root = fileURLToPath(url);
    for (const name of readdirSync(root).sort()) {
      const file = join(root, name, 'SKILL.md');
      if (existsSync(file)) out.push({ name: `${prefix}-${name}`, text: readFileSync(file, 'utf8') });
    }
  }
  return out;
}

mutationSuite('mutations of the bundled skills and the fixtures', sources, { count: 300, seed: 1 });
