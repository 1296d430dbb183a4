import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { Skill } from './types.js';

/**
 * Parsed skills kept by the application between runs (a file, a map): the parser looks a skill up before it parses
 * and offers what it parsed. The keys are the parser's own (see `skillCacheKey`); the cache only stores and returns.
 */
export interface SkillCache {
  get(key: string): Skill | undefined;
  set(key: string, skill: Skill): void;
}

let build: string | null | undefined;

/**
 * This parser's build: the file its code was loaded from, with that file's time and size. Every build rewrites it, so
 * a skill parsed by another build (older rules, other fields) is never read back. `null` when the code is not a file.
 */
function parserBuild(): string | null {
  if (build === undefined) {
    try {
      const file = fileURLToPath(import.meta.url);
      const info = statSync(file);
      build = `${file}:${info.mtimeMs}:${info.size}`;
    } catch {
      build = null;
    }
  }
  return build;
}

/**
 * The key of one parse: everything its result depends on (the parser's build, the file's path, its text, the
 * folder's other files, strictness). `undefined`: nothing may be cached.
 */
export function skillCacheKey(
  text: string,
  path: string,
  resources: readonly string[],
  strict: boolean,
): string | undefined {
  const id = parserBuild();
  if (id === null) return undefined;
  return createHash('sha256')
    .update(JSON.stringify([id, path, strict, resources, text]))
    .digest('base64url');
}

/** A skill a JSON file gives back exactly (today every field is JSON; this keeps a future one honest). */
export function cacheable(skill: Skill): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(skill)), skill);
}
