import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SKILL_FILE_NAMES } from '../src/index.js';
import { corpus } from './corpus.js';
import { expectSameResult } from './routes.js';

/** Every SKILL.md (any of its accepted names) under `root`, at any depth. */
function skillFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((path) => (SKILL_FILE_NAMES as readonly string[]).includes(path.split('/').pop()!))
    .map((path) => join(root, path))
    .sort();
}

/** The unified route against the fast route on the shared corpus: the same skill and messages, plain and --strict. */
describe.each([
  ['birdie', 7],
  ['agentskills', 14],
  ['skills-ref', 55],
])('the unified route gives what the fast route gives on corpus/%s', (name, count) => {
  const files = skillFiles(join(corpus, name));

  it(`on all ${count} files`, () => {
    expect(files).toHaveLength(count);
    for (const path of files) {
      const text = readFileSync(path, 'utf8');
      expectSameResult(text, path);
      expectSameResult(text, path, { strict: true, label: `${path} (strict)` });
    }
  });
});
