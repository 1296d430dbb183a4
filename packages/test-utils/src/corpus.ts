import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout this package lives in (packages/test-utils/{src,dist} → the repository root). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The shared corpus is test data that sits *beside* a CI checkout (`<repo>/../shared/corpus`), never inside it: a
 * user's clone has none. Only `pnpm test:corpus` may read it, and that suite must fail — never skip — without it.
 */
export class CorpusMissingError extends Error {
  readonly code = 'corpus-missing';
  constructor(readonly path: string) {
    super(
      `the shared corpus is not at ${path}: \`pnpm test:corpus\` needs ../shared/corpus beside the checkout, or BIRDIE_CORPUS=DIR`,
    );
    this.name = 'CorpusMissingError';
  }
}

export function isCorpusMissingError(error: unknown): error is CorpusMissingError {
  return error instanceof CorpusMissingError;
}

/** `$BIRDIE_CORPUS`, else `<repo>/../shared/corpus`; throws `CorpusMissingError` when it is not there. */
export function corpusRoot(): string {
  const path = process.env.BIRDIE_CORPUS ?? join(REPO_ROOT, '..', 'shared', 'corpus');
  if (!existsSync(join(path, 'agentskills'))) throw new CorpusMissingError(path);
  return path;
}

/** What marks a source as reading the corpus: its folder names, its variable, or this module's helper. */
const READS_CORPUS = /shared\/corpus|['"]shared['"],\s*['"]corpus['"]|BIRDIE_CORPUS|corpusRoot\(/;

/**
 * Test files of `pnpm test` (every `*.test.ts` that is not `*.corpus.test.ts` or `*.int.test.ts`) that read the
 * shared corpus, as paths relative to the repository. `pnpm test` must pass on a clone with nothing beside it.
 */
export function testsReadingCorpus(root = REPO_ROOT): string[] {
  const found: string[] = [];
  // This module's own test calls `corpusRoot()` to test it (on folders it makes); it never reads the corpus.
  const self = join(root, 'packages', 'test-utils', 'src', 'corpus.test.ts');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (
        name.endsWith('.test.ts') &&
        !name.endsWith('.corpus.test.ts') &&
        !name.endsWith('.int.test.ts') &&
        path !== self &&
        READS_CORPUS.test(readFileSync(path, 'utf8'))
      )
        found.push(relative(root, path));
    }
  };
  for (const top of ['packages', 'apps', 'skills']) if (existsSync(join(root, top))) walk(join(root, top));
  return found.sort();
}
