// The bundled skills ship inside the CLI's package (dist/skills), so an installed birdie finds them next to its own
// files. Copied from the repository's `skills/`: each skill folder (one with a SKILL.md), without the workspace's
// tests, benches and node_modules. Their npm dependencies (skills/package.json) are the CLI's dependencies too, so
// Node resolves them from the package's node_modules (or the one npm hoisted them to) — see test/package-manifest.

import { existsSync } from 'node:fs';
import { cp, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SKILLS_SOURCE = fileURLToPath(new URL('../../../skills', import.meta.url));

const LEFT_OUT = new Set(['node_modules', 'test', 'bench', '.turbo']);

/** Copies every skill folder of `from` into `to`; returns their names. */
export async function copyBundledSkills(from = SKILLS_SOURCE, to) {
  const names = [];
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (!entry.isDirectory() || LEFT_OUT.has(entry.name)) continue;
    if (!existsSync(join(from, entry.name, 'SKILL.md'))) continue;
    await cp(join(from, entry.name), join(to, entry.name), {
      recursive: true,
      filter: (source) => !LEFT_OUT.has(basename(source)) && !/\.test\.[cm]?[jt]s$/.test(source),
    });
    names.push(entry.name);
  }
  await cp(join(from, 'README.md'), join(to, 'README.md'));
  return names;
}
