// The schema check alone, from the parser's light entry: loading it does not load the SKILL.md parser.
import { schemaProblems } from '@birdie/skill-parser/json-schema';
import { Validator } from '@langchain/core/utils/json_schema';

type Schema = Record<string, unknown>;

export type PrepareResult = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Fills absent properties from their schema `default`, recursively into nested objects. Never mutates `args`. */
export function applyDefaults(schema: Schema, args: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties;
  if (!isPlainObject(properties)) return args;
  const out: Record<string, unknown> = { ...args };
  for (const [key, property] of Object.entries(properties)) {
    if (!isPlainObject(property)) continue;
    if (out[key] === undefined && 'default' in property) out[key] = structuredClone(property.default);
    else if (isPlainObject(out[key]) && isPlainObject(property.properties)) {
      out[key] = applyDefaults(property, out[key] as Record<string, unknown>);
    }
  }
  return out;
}

/** A compiled JSON Schema check (draft 2020-12 semantics, @cfworker/json-schema as bundled by LangChain). */
export function argsPreparer(input: Schema): (args: Record<string, unknown>) => PrepareResult {
  // The validator annotates the schema object it is given; registry skills are frozen, so it gets its own copy.
  const schema = structuredClone(input);
  const validator = new Validator(schema as never, '2020-12', false);
  const declared = declaredOnly(schema);
  return (args) => {
    if (!isPlainObject(args)) return { ok: false, error: 'Invalid arguments: expected a JSON object.' };
    const withDefaults = applyDefaults(schema, args);
    const result = validator.validate(withDefaults);
    const undeclared = declared ? Object.keys(args).filter((key) => !declared.has(key)) : [];
    const inexact = inexactIntegers(schema, withDefaults);
    if (result.valid && undeclared.length === 0 && inexact.length === 0)
      return { ok: true, args: withDefaults };
    const defaulted = result.valid ? [] : defaultedPaths(schema, args);
    // A schema nothing satisfies, or a default it refuses that this call relied on, is the skill's mistake: the model
    // must not be told to fix it. A default the call did not rely on is not this call's problem.
    const broken = brokenSchema(
      schema,
      (location) => defaulted.some((path) => location === path || location.startsWith(`${path}/`)),
      result.valid ? [] : result.errors.map((e) => e.instanceLocation),
    );
    if (broken) return { ok: false, error: broken };
    const takes = declared ? [...declared].join(', ') || 'none' : '';
    const details = [
      ...undeclared.map((key) => `- ${key}: not an argument of this tool (it takes: ${takes})`),
      ...inexact.map(
        ({ path, value }) =>
          `- ${path}: ${value} is not an exact integer: beyond ±${Number.MAX_SAFE_INTEGER} a JSON number is rounded when it is read, so the tool cannot be given the number that was written, and the call was not made`,
      ),
      ...(result.valid ? [] : result.errors)
        .filter((e) => e.keyword !== 'properties' && e.keyword !== '$ref')
        .map(
          (e) =>
            `- ${e.instanceLocation === '#' ? '(root)' : e.instanceLocation.replace(/^#\//, '')}: ${e.error}`,
        ),
    ];
    return {
      ok: false,
      error: `Invalid arguments, fix them and call again:\n${[...new Set(details)].join('\n') || '- (schema mismatch)'}`,
    };
  };
}

/**
 * Where the schema asks for an integer and the value is a number beyond ±(2^53 − 1): JSON's numbers are doubles, so
 * such a value was already rounded when the call's JSON was read (`9007199254740993` arrives as 9007199254740992,
 * `1e300` is an integer to JSON Schema but prints as `1e+300`). Followed through `properties` and `items` (one schema
 * for every item), not through `anyOf`, `oneOf`, `$ref`, `prefixItems` or `additionalProperties`.
 */
function inexactIntegers(schema: unknown, value: unknown, at = ''): { path: string; value: string }[] {
  if (!isPlainObject(schema)) return [];
  const type = schema.type;
  const integer =
    type === 'integer' || (Array.isArray(type) && type.includes('integer') && !type.includes('number'));
  if (integer && typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value))
    return [{ path: at || '(root)', value: String(value) }];
  const found: { path: string; value: string }[] = [];
  if (isPlainObject(value) && isPlainObject(schema.properties)) {
    for (const [key, property] of Object.entries(schema.properties))
      if (key in value) found.push(...inexactIntegers(property, value[key], at ? `${at}/${key}` : key));
  } else if (Array.isArray(value) && isPlainObject(schema.items)) {
    value.forEach((item, k) => {
      found.push(...inexactIntegers(schema.items, item, at ? `${at}/${k}` : String(k)));
    });
  }
  return found;
}

/**
 * The argument names a schema takes when it lists them and says nothing of others (no `additionalProperties`, no
 * `patternProperties`): an undeclared name would otherwise reach the entrypoint (an `http:` tool sends every argument
 * not in its URL as a query parameter, which could repeat one the URL fixes). Undefined when others are allowed.
 */
function declaredOnly(schema: Schema): Set<string> | undefined {
  if (!isPlainObject(schema.properties)) return undefined;
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return undefined;
  if (schema.patternProperties !== undefined) return undefined;
  return new Set(Object.keys(schema.properties));
}

/** Where `applyDefaults` fills a value into `args` (`#/a`, `#/a/b`): the places a broken default can fail a call. */
function defaultedPaths(schema: Schema, args: Record<string, unknown>, at = '#'): string[] {
  const properties = schema.properties;
  if (!isPlainObject(properties)) return [];
  const paths: string[] = [];
  for (const [key, property] of Object.entries(properties)) {
    if (!isPlainObject(property)) continue;
    const path = `${at}/${key}`;
    if (args[key] === undefined && 'default' in property) paths.push(path);
    else if (isPlainObject(args[key]))
      paths.push(...defaultedPaths(property, args[key] as Record<string, unknown>, path));
  }
  return paths;
}

/**
 * The error for a call whose tool's schema is itself broken (any invalid part; a refused default only when the call
 * failed where that default was filled in), or undefined when the call's failure is its arguments'.
 */
function brokenSchema(
  schema: Schema,
  filledByDefault: (location: string) => boolean,
  failedAt: string[],
): string | undefined {
  const { invalid, defaults } = schemaProblems(schema);
  const relied = failedAt.some(filledByDefault) ? defaults : [];
  const problems = [...invalid, ...relied];
  if (problems.length === 0) return undefined;
  const lines = problems.map((p) => `- ${p.path.join('.') || '(schema)'}: ${p.message}`);
  return `The tool's schema is broken (not your arguments), so no call can succeed until its skill is fixed; tell the user:\n${lines.join('\n')}`;
}

/**
 * Why `args` do not fit a tool's JSON Schema (defaults applied first, as for a call), or undefined when they do:
 * the check a call's arguments get, for a prompt that lets the user edit them.
 */
export function checkToolArgs(parameters: Schema, args: unknown): string | undefined {
  const prepared = argsPreparer(parameters)(args as Record<string, unknown>);
  return prepared.ok ? undefined : prepared.error;
}
