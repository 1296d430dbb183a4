import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { AgentDefinition, Skill } from './types.js';

/**
 * Parsed skills and agents kept by the application between runs (a file, a map): the parser looks one up before it
 * parses and offers what it parsed. The keys are the parser's own (see `parseCacheKey`): a key names one kind of
 * definition, so what `get` returns for it is what was `set` for it. The cache only stores and returns.
 */
export interface SkillCache {
  get(key: string): Skill | AgentDefinition | undefined;
  set(key: string, definition: Skill | AgentDefinition): void;
}

let build: string | null | undefined;

/**
 * This parser's build: the file its code was loaded from, with that file's time and size. Every build rewrites it, so
 * a definition parsed by another build (older rules, other fields) is never read back. `null` when the code is not a
 * file.
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
 * The key of one parse: everything its result depends on (the parser's build, what is parsed, the file's path and
 * text, and for a skill its folder's other files and strictness). `undefined`: nothing may be cached.
 */
export function parseCacheKey(
  kind: 'skill' | 'agent',
  path: string,
  text: string,
  inputs: unknown[] = [],
): string | undefined {
  const id = parserBuild();
  if (id === null) return undefined;
  return createHash('sha256')
    .update(JSON.stringify([id, kind, path, inputs, text]))
    .digest('base64url');
}

/** A definition a JSON file gives back exactly (today every field is JSON; this keeps a future one honest). */
export function cacheable(definition: Skill | AgentDefinition): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(definition)), definition);
}
