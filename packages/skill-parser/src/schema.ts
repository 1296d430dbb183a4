import { z } from 'zod';
import type { Reporter } from './diagnostics.js';
import { fastYaml } from './fast-yaml.js';
import { MAX_YAML_DEPTH } from './limits.js';
import type { Fence } from './outline.js';
import { type SchemaProblem, schemaProblems } from './schema-checks.js';
import { nextLine, type Source } from './source.js';
import { type Entry, yamlValue } from './tool-entries.js';
import type { JsonSchemaObject } from './types.js';
import { zodReason } from './values.js';
import { parseYaml, yamlToJS } from './yaml.js';

const node = z.record(z.string(), z.unknown());

/** What "an object JSON Schema" means here: what every provider accepts as a function's parameters. */
const objectSchema = z.looseObject({
  type: z.literal('object', { error: 'top-level `type` must be `object`' }),
  properties: z.record(z.string(), node, { error: '`properties` must map names to schemas' }).optional(),
  required: z.array(z.string(), { error: '`required` must be a list of property names' }).optional(),
});

export function checkSchema(
  value: unknown,
  reporter: Reporter,
  start: number,
  end: number,
  /** Where the schema's text ends, for finding its keys (default `end`). */
  textEnd = end,
): JsonSchemaObject | undefined {
  const parsed = objectSchema.safeParse(value);
  if (!parsed.success) {
    reporter.report(
      'tool-invalid-schema',
      `Schema is not an object JSON Schema: ${zodReason(parsed.error)}`,
      start,
      end,
    );
    return undefined;
  }
  // A schema no argument could satisfy fails every call, and the model would be blamed: said here, at its place.
  const { invalid, defaults, annotations } = schemaProblems(value);
  const text = reporter.source?.text ?? '';
  for (const problem of invalid) {
    const at = locate(text, start, textEnd, problem);
    reporter.report('tool-invalid-schema', `Schema is not a valid JSON Schema: ${describe(problem)}`, at, at);
  }
  for (const problem of annotations) {
    const at = locate(text, start, textEnd, problem);
    reporter.report(
      'tool-schema-annotation',
      `Schema ${describe(problem)}; it only describes, so the tool loads`,
      at,
      at,
    );
  }
  if (invalid.length) return undefined;
  for (const problem of defaults) {
    const at = locate(text, start, textEnd, problem);
    reporter.report(
      'tool-invalid-default',
      `Schema ${describe(problem)}; every call that leaves it out fails`,
      at,
      at,
    );
  }
  for (const name of requiredUndeclared(value)) {
    const at = locate(text, start, textEnd, { path: ['required'], message: '' });
    reporter.report(
      'tool-required-undeclared',
      `Schema \`required\` names \`${name}\`, which \`properties\` does not declare: every call fails (without it, it is missing; with it, it is not an argument of this tool)`,
      at,
      at,
    );
  }
  // The value itself, not zod's copy: a copy built by assignment loses a property named `__proto__`.
  return value as JsonSchemaObject;
}

/**
 * The names `required` lists that a schema taking only its listed `properties` does not declare (no
 * `additionalProperties`, no `patternProperties`: the agent refuses any other argument, so no call can satisfy both).
 */
function requiredUndeclared(schema: unknown): string[] {
  const s = schema as {
    properties?: unknown;
    required?: unknown;
    additionalProperties?: unknown;
    patternProperties?: unknown;
  };
  if (typeof s.properties !== 'object' || s.properties === null || !Array.isArray(s.required)) return [];
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) return [];
  if (s.patternProperties !== undefined) return [];
  const declared = s.properties as Record<string, unknown>;
  return [
    ...new Set(
      s.required.filter((name): name is string => typeof name === 'string' && !Object.hasOwn(declared, name)),
    ),
  ];
}

function describe(problem: SchemaProblem): string {
  return problem.path.length ? `\`${problem.path.join('.')}\`: ${problem.message}` : problem.message;
}

/**
 * Where a problem's key is written, found by looking for each key of its path in turn, after the previous one, inside
 * the schema's text (YAML or JSON); the schema's start when a key is not found (e.g. an index into a list).
 */
function locate(text: string, start: number, end: number, problem: SchemaProblem): number {
  let at = start;
  for (const key of problem.path) {
    if (/^\d+$/.test(key)) continue;
    const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(`(^|[\\s{,])["']?${escaped}["']?\\s*:`, 'gm');
    pattern.lastIndex = at;
    const found = pattern.exec(text.slice(0, end));
    if (!found) return at;
    at = found.index + found[1]!.length;
  }
  return at;
}

/** A tool's schema: from its `schema:` entry, or from its ```yaml / ```json fence. */
export function readSchema(
  source: Source,
  entry: Entry | undefined,
  fence: Fence | undefined,
  reporter: Reporter,
) {
  if (entry && !fence) {
    const { ok, value } = yamlValue(source, entry, reporter);
    if (!ok) return undefined;
    if (value == null) return { type: 'object', properties: {} } satisfies JsonSchemaObject;
    const last = entry.lines.at(-1);
    const textEnd = last ? last.start + last.text.length : entry.inlineStart + entry.inline.length;
    return checkSchema(value, reporter, entry.keyStart, entry.inlineStart, textEnd);
  }
  if (!fence) return { type: 'object', properties: {} } satisfies JsonSchemaObject;
  // JSON is YAML 1.2: one parser gives exact positions (and duplicate keys) for both kinds of fence.
  const valueStart = nextLine(source.text, fence.start);
  if (fence.lang === 'json') {
    const json = tryJson(fence.value);
    if (json.ok) return checkSchema(json.value, reporter, fence.start, fence.end);
  } else {
    const fast = fastYaml(fence.value);
    if (fast) return checkSchema(fast, reporter, fence.start, fence.end);
  }
  const parsed = parseYaml(fence.value, valueStart, reporter, fence.lang === 'json' ? 'JSON' : 'YAML');
  if (!parsed) return undefined;
  if (fence.lang === 'json') {
    try {
      JSON.parse(fence.value);
    } catch (error) {
      // Valid YAML but not JSON (e.g. `"a": }`): V8 sometimes names the position.
      const at = /position (\d+)/.exec((error as Error).message);
      const offset = valueStart + (at ? Number(at[1]) : 0);
      reporter.report('tool-invalid-schema', `Schema is not valid JSON: ${(error as Error).message}`, offset);
      return undefined;
    }
  }
  const data = yamlToJS(parsed, valueStart, reporter);
  return data.ok ? checkSchema(data.value, reporter, fence.start, fence.end) : undefined;
}

/**
 * JSON.parse keeps the last of duplicate keys silently; duplicates are an error, so those go to the YAML reader — and so
 * does JSON nested past the limit, which the YAML reader reports with its position.
 */
function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    const value = JSON.parse(text) as unknown;
    return hasDuplicateKeys(text) || depthOf(value) > MAX_YAML_DEPTH ? { ok: false } : { ok: true, value };
  } catch {
    return { ok: false };
  }
}

/** Nesting depth of a JSON value (objects and arrays count one level each), without recursion. */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth + 1 > max) max = depth + 1;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
}

/** Whether an object in valid JSON text repeats a key (strings are skipped whole, so braces inside them do not count). */
function hasDuplicateKeys(text: string): boolean {
  const stack: Set<string>[] = [];
  const token = /"(?:[^"\\]|\\.)*"(\s*:)?|[{}]/g;
  for (let m = token.exec(text); m; m = token.exec(text)) {
    if (m[0] === '{') stack.push(new Set());
    else if (m[0] === '}') stack.pop();
    else if (m[1]) {
      const keys = stack.at(-1)!;
      const key = JSON.parse(m[0].slice(0, m[0].length - m[1].length)) as string;
      if (keys.has(key)) return true;
      keys.add(key);
    }
  }
  return false;
}
