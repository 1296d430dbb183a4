import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** An authored file the suites read: a name for it, its text and where it is. */
export interface SourceFile {
  name: string;
  text: string;
  path: string;
}

/** The repository's bundled skills and this package's fixtures: every shape of SKILL.md the parser knows. */
export function skillSources(): SourceFile[] {
  const out: SourceFile[] = [];
  for (const [prefix, url] of [
    ['skills', new URL('../../../skills', import.meta.url)],
    ['fixture', new URL('./fixtures', import.meta.url)],
  ] as const) {
    const root = fileURLToPath(url);
    for (const name of readdirSync(root).sort()) {
      const path = join(root, name, 'SKILL.md');
      if (existsSync(path)) out.push({ name: `${prefix}-${name}`, text: readFileSync(path, 'utf8'), path });
    }
  }
  return out;
}

/** The agent-file fixtures, and the CLI's bundled agents. */
export function agentSources(): SourceFile[] {
  const out: SourceFile[] = [];
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
      for (const path of files)
        out.push({ name: `${prefix}-${entry}`, text: readFileSync(path, 'utf8'), path });
    }
  }
  return out;
}
