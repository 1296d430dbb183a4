import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentMutationSuite, mutationSuite, type Source } from './mutate.js';

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

/** The agent-file fixtures, and the CLI's bundled agents. */
function agentSources(): Source[] {
  const out: Source[] = [];
  for (const [prefix, url] of [
    ['fixture', new URL('./fixtures/agents', import.meta.url)],
    ['bundled', new URL('../../../apps/cli/agents', import.meta.url)],
  ] as const) {
    const root = fileURLToPath(url);
    if (!existsSync(root)) continue;
    for (const entry of readdirSync(root).sort()) {
      const dir = join(root, entry);
      const files = existsSync(join(dir, 'expected.json'))
        ? readdirSync(dir)
            .filter((f) => f.endsWith('.md'))
            .map((f) => join(dir, f))
        : entry.endsWith('.md')
          ? [dir]
          : [];
      for (const file of files) out.push({ name: `${prefix}-${entry}`, text: readFileSync(file, 'utf8') });
    }
  }
  return out;
}

agentMutationSuite('mutations of the agent fixtures and the bundled agents', agentSources, {
  count: 300,
  seed: 7,
});
