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
  return (args) => {
    if (!isPlainObject(args)) return { ok: false, error: 'Invalid arguments: expected a JSON object.' };
    const withDefaults = applyDefaults(schema, args);
    const result = validator.validate(withDefaults);
    if (result.valid) return { ok: true, args: withDefaults };
    // A schema nothing satisfies (or a default it refuses) is the skill's mistake: the model must not be told to fix it.
    const broken = brokenSchema(schema);
    if (broken) return { ok: false, error: broken };
    const details = result.errors
      .filter((e) => e.keyword !== 'properties' && e.keyword !== '$ref')
      .map(
        (e) =>
          `- ${e.instanceLocation === '#' ? '(root)' : e.instanceLocation.replace(/^#\//, '')}: ${e.error}`,
      );
    return {
      ok: false,
      error: `Invalid arguments, fix them and call again:\n${[...new Set(details)].join('\n') || '- (schema mismatch)'}`,
    };
  };
}

/** The error for a call whose tool's schema is itself broken, or undefined when the schema is sound. */
function brokenSchema(schema: Schema): string | undefined {
  const { invalid, defaults } = schemaProblems(schema);
  const problems = [...invalid, ...defaults];
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
