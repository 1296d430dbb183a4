import { Validator } from '@cfworker/json-schema';
import { plainlyValid } from './plain-schema.js';

// Checks of a tool's schema itself, at parse time: a schema no argument could satisfy (a misspelt `type`, an `enum`
// that is not a list) or a `default` its own schema refuses makes every call fail, and the model would be told to fix
// arguments it never sent. The validator is the one calls are checked with (@cfworker/json-schema).

/**
 * The JSON Schema draft-07 meta-schema (json-schema.org), self-contained. Tools are checked with draft 2020-12
 * semantics; its meta-schema is split into vocabularies with `$dynamicRef`, which the validator does not follow into
 * nested schemas, so draft-07's describes the keywords both share (and allows the newer ones).
 */
export const META_SCHEMA = {
  definitions: {
    schemaArray: {
      type: 'array',
      minItems: 1,
      items: {
        $ref: '#',
      },
    },
    nonNegativeInteger: {
      type: 'integer',
      minimum: 0,
    },
    nonNegativeIntegerDefault0: {
      allOf: [
        {
          $ref: '#/definitions/nonNegativeInteger',
        },
        {
          default: 0,
        },
      ],
    },
    simpleTypes: {
      enum: ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'],
    },
    stringArray: {
      type: 'array',
      items: {
        type: 'string',
      },
      uniqueItems: true,
      default: [],
    },
  },
  type: ['object', 'boolean'],
  properties: {
    $id: {
      type: 'string',
      format: 'uri-reference',
    },
    $schema: {
      type: 'string',
      format: 'uri',
    },
    $ref: {
      type: 'string',
      format: 'uri-reference',
    },
    $comment: {
      type: 'string',
    },
    title: {
      type: 'string',
    },
    description: {
      type: 'string',
    },
    default: true,
    readOnly: {
      type: 'boolean',
      default: false,
    },
    examples: {
      type: 'array',
      items: true,
    },
    multipleOf: {
      type: 'number',
      exclusiveMinimum: 0,
    },
    maximum: {
      type: 'number',
    },
    exclusiveMaximum: {
      type: 'number',
    },
    minimum: {
      type: 'number',
    },
    exclusiveMinimum: {
      type: 'number',
    },
    maxLength: {
      $ref: '#/definitions/nonNegativeInteger',
    },
    minLength: {
      $ref: '#/definitions/nonNegativeIntegerDefault0',
    },
    pattern: {
      type: 'string',
      format: 'regex',
    },
    additionalItems: {
      $ref: '#',
    },
    items: {
      anyOf: [
        {
          $ref: '#',
        },
        {
          $ref: '#/definitions/schemaArray',
        },
      ],
      default: true,
    },
    maxItems: {
      $ref: '#/definitions/nonNegativeInteger',
    },
    minItems: {
      $ref: '#/definitions/nonNegativeIntegerDefault0',
    },
    uniqueItems: {
      type: 'boolean',
      default: false,
    },
    contains: {
      $ref: '#',
    },
    maxProperties: {
      $ref: '#/definitions/nonNegativeInteger',
    },
    minProperties: {
      $ref: '#/definitions/nonNegativeIntegerDefault0',
    },
    required: {
      $ref: '#/definitions/stringArray',
    },
    additionalProperties: {
      $ref: '#',
    },
    definitions: {
      type: 'object',
      additionalProperties: {
        $ref: '#',
      },
      default: {},
    },
    properties: {
      type: 'object',
      additionalProperties: {
        $ref: '#',
      },
      default: {},
    },
    patternProperties: {
      type: 'object',
      additionalProperties: {
        $ref: '#',
      },
      propertyNames: {
        format: 'regex',
      },
      default: {},
    },
    dependencies: {
      type: 'object',
      additionalProperties: {
        anyOf: [
          {
            $ref: '#',
          },
          {
            $ref: '#/definitions/stringArray',
          },
        ],
      },
    },
    propertyNames: {
      $ref: '#',
    },
    const: true,
    enum: {
      type: 'array',
      items: true,
      minItems: 1,
      uniqueItems: true,
    },
    type: {
      anyOf: [
        {
          $ref: '#/definitions/simpleTypes',
        },
        {
          type: 'array',
          items: {
            $ref: '#/definitions/simpleTypes',
          },
          minItems: 1,
          uniqueItems: true,
        },
      ],
    },
    format: {
      type: 'string',
    },
    contentMediaType: {
      type: 'string',
    },
    contentEncoding: {
      type: 'string',
    },
    if: {
      $ref: '#',
    },
    // biome-ignore lint/suspicious/noThenProperty: the keyword `then` of JSON Schema itself
    then: {
      $ref: '#',
    },
    else: {
      $ref: '#',
    },
    allOf: {
      $ref: '#/definitions/schemaArray',
    },
    anyOf: {
      $ref: '#/definitions/schemaArray',
    },
    oneOf: {
      $ref: '#/definitions/schemaArray',
    },
    not: {
      $ref: '#',
    },
  },
  default: true,
};

export interface SchemaProblem {
  /** Where, as keys from the schema's top (`['properties', 'unit', 'default']`). */
  path: string[];
  message: string;
}

let meta: Validator | undefined;

/** The first failure of each place, without the "a subschema had errors" lines that only lead to it. */
function leafErrors(
  errors: ReadonlyArray<{
    keywordLocation: string;
    instanceLocation: string;
    error: string;
    keyword: string;
  }>,
) {
  const seen = new Set<string>();
  const out: Array<{ at: string; error: string; keyword: string }> = [];
  for (const e of errors) {
    if (
      ['$ref', 'properties', 'allOf', 'items', 'additionalProperties', 'anyOf', 'patternProperties'].includes(
        e.keyword,
      )
    )
      continue;
    if (seen.has(e.instanceLocation)) continue;
    seen.add(e.instanceLocation);
    out.push({ at: e.instanceLocation, error: e.error, keyword: e.keyword });
  }
  return out;
}

function pathOf(pointer: string): string[] {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~'));
}

const TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'];

/** Keywords whose value is one schema, a map of named schemas, or a list of schemas (draft-07 and 2020-12). */
const SCHEMA_VALUED = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
const SCHEMA_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);

/**
 * The index in `path` of the last keyword (as opposed to a property's name, a list index or a place inside a
 * keyword's value): in `properties/type/enum` it is `enum`, and `type` there is a property's name.
 */
function lastKeyword(path: readonly string[]): number {
  let state: 'keyword' | 'name' | 'value' = 'keyword';
  let last = -1;
  for (const [i, part] of path.entries()) {
    if (state === 'keyword') {
      last = i;
      if (SCHEMA_MAPS.has(part) || SCHEMA_LISTS.has(part)) state = 'name';
      else if (SCHEMA_VALUED.has(part)) state = /^\d+$/.test(path[i + 1] ?? '') ? 'name' : 'keyword';
      else state = 'value';
    } else if (state === 'name') state = 'keyword';
  }
  return last;
}

/**
 * Keywords that only describe (names, comments, examples, the dialect): a mistake in one stops no argument from
 * matching, so it is a warning and the tool loads.
 */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  '$comment',
  '$id',
  '$schema',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/**
 * Why a schema is not a valid JSON Schema (its keywords checked against the meta-schema): `invalid`, the keywords no
 * argument could satisfy; `annotations`, mistakes in keywords that only describe (and a name `required` twice).
 */
function metaProblems(schema: unknown): { invalid: SchemaProblem[]; annotations: SchemaProblem[] } {
  if (plainlyValid(schema)) return { invalid: [], annotations: [] };
  meta ??= new Validator(META_SCHEMA as never, '7', false);
  const result = meta.validate(schema);
  if (result.valid) return { invalid: [], annotations: [] };
  const invalid: SchemaProblem[] = [];
  const annotations: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const { at, error, keyword } of leafErrors(result.errors)) {
    const path = pathOf(at);
    const k = lastKeyword(path);
    const named = k >= 0 ? path[k] : undefined;
    const problem =
      named === 'type'
        ? {
            path: path.slice(0, k + 1),
            message: `\`type\` must be one of ${TYPES.join(', ')} (or a list of them)`,
          }
        : {
            path,
            message: error
              .replace(/^Instance type "(\w+)" is invalid\. Expected "(\w+)"\.$/, 'expected $2, not $1')
              .replace(/\.$/, ''),
          };
    const key = `${problem.path.join('/')}\n${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const describes =
      (named !== undefined && ANNOTATIONS.has(named)) || (named === 'required' && keyword === 'uniqueItems');
    (describes ? annotations : invalid).push(problem);
  }
  return { invalid, annotations };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Each sub-schema with a `default`, with its path (where calls get defaults filled in, and more). */
function* withDefaults(
  schema: unknown,
  path: string[] = [],
): Generator<{ schema: Record<string, unknown>; path: string[] }> {
  if (!isObject(schema)) return;
  if (Object.hasOwn(schema, 'default')) yield { schema, path };
  for (const key of ['properties', 'patternProperties', '$defs', 'definitions'])
    if (isObject(schema[key]))
      for (const [name, sub] of Object.entries(schema[key])) yield* withDefaults(sub, [...path, key, name]);
  for (const key of ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains'])
    yield* withDefaults(schema[key], [...path, key]);
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
    if (Array.isArray(schema[key]))
      for (const [index, sub] of (schema[key] as unknown[]).entries())
        yield* withDefaults(sub, [...path, key, String(index)]);
}

/** A validator error as a clause: `Instance does not match any of ["a","b"].` → `not one of ["a","b"]`. */
function reasonOf(error: string | undefined): string {
  if (!error) return 'invalid';
  return error
    .replace(/\.$/, '')
    .replace(/^Instance does not match any of /, 'not one of ')
    .replace(/^Instance type "(\w+)" is invalid\. Expected "(\w+)"$/, 'expected $2, not $1');
}

/** Defaults their own schema refuses: filled in, they fail every call that leaves the value out. */
function defaultProblems(schema: unknown): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const { schema: sub, path } of withDefaults(schema)) {
    const { default: value, ...rest } = sub;
    // A `$ref` inside would need the whole document; such defaults are left to the call.
    if (JSON.stringify(rest).includes('"$ref"')) continue;
    const result = new Validator(structuredClone(rest) as never, '2020-12', false).validate(value);
    if (result.valid) continue;
    const first = leafErrors(result.errors)[0];
    problems.push({
      path: [...path, 'default'],
      message: `\`default\` ${JSON.stringify(value)} does not fit its own schema (${reasonOf(first?.error)})`,
    });
  }
  return problems;
}

/**
 * What makes a tool's schema unusable: keywords the meta-schema refuses (`invalid`), then, when there are none,
 * defaults their own schema refuses (`defaults`); and mistakes in keywords that only describe (`annotations`), which
 * leave the schema usable.
 */
export function schemaProblems(schema: unknown): {
  invalid: SchemaProblem[];
  defaults: SchemaProblem[];
  annotations: SchemaProblem[];
} {
  const { invalid, annotations } = metaProblems(schema);
  return { invalid, annotations, defaults: invalid.length ? [] : defaultProblems(schema) };
}
