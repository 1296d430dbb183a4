import { Validator } from '@cfworker/json-schema';
import { describe, expect, it } from 'vitest';
import { prng } from '../test/mutate.js';
import { plainlyValid } from './plain-schema.js';
import { META_SCHEMA, schemaProblems } from './schema-checks.js';

// The shortcut may only say yes where the meta-schema does: every schema below, written or generated, is checked
// with both, and a yes from the shortcut with a no from the validator fails the test.
const meta = new Validator(META_SCHEMA as never, '7', false);
const metaValid = (schema: unknown) => meta.validate(schema).valid;

const plain = [
  { type: 'object', properties: { path: { type: 'string', description: 'the file' } }, required: ['path'] },
  {
    type: 'object',
    properties: {
      n: { type: 'integer', default: 5, minimum: -1, maximum: 10 },
      unit: { enum: ['c', 'f', 3, true, null], default: 'c' },
      tags: { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, maxItems: 4 },
      opts: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
    },
    required: [],
    additionalProperties: false,
    title: 'args',
    $comment: 'made by hand',
  },
  true,
  {},
  { const: { any: ['thing'] }, examples: [1, 'a'], format: 'date', readOnly: true },
];

/** What the meta-schema refuses, and what the shortcut must leave to it (some of these the validator accepts). */
const leftToValidator = [
  { type: 'strng' },
  { type: ['string', 'string'] },
  { type: [] },
  { enum: [] },
  { enum: ['a', 'a'] },
  { enum: [{ a: 1 }] },
  { required: ['a', 'a'] },
  { required: [1] },
  { required: 'a' },
  { minLength: -1 },
  { minLength: 1.5 },
  { maxItems: '3' },
  { minimum: '1' },
  { minimum: Number.NaN },
  { maximum: Number.POSITIVE_INFINITY },
  { properties: [] },
  { properties: { a: { type: 'nope' } } },
  { items: [{ type: 'string' }] },
  { additionalProperties: 'no' },
  { description: 3 },
  { pattern: '[' },
  { $ref: '#/definitions/x' },
  { anyOf: [{ type: 'string' }] },
  { unknownKeyword: 1 },
  JSON.parse('{"__proto__": {"type": "string"}}'),
  null,
  [],
  'object',
  3,
  Object.assign(Object.create(null), { type: 'string' }),
];

const VALUES: Array<() => unknown> = [
  () => 'string',
  () => 'strng',
  () => '',
  () => 0,
  () => -0,
  () => -1,
  () => 1.5,
  () => 7,
  () => Number.NaN,
  () => Number.POSITIVE_INFINITY,
  () => true,
  () => null,
  () => [],
  () => ['a'],
  () => ['a', 'a'],
  () => ['string', 'integer'],
  () => ['string', 'string'],
  () => [1, '1', true, null],
  () => [0, -0],
  () => [{}],
  () => ({}),
  () => ({ type: 'string' }),
  () => ({ a: { type: 'integer' } }),
  () => ({ a: { type: 'wrong' } }),
];
const KEYS = [
  'type',
  'description',
  'title',
  'format',
  'default',
  'enum',
  'const',
  'required',
  'minimum',
  'exclusiveMaximum',
  'minLength',
  'maxItems',
  'uniqueItems',
  'readOnly',
  'examples',
  'items',
  'additionalProperties',
  'properties',
  'pattern',
  'anyOf',
];

/** A schema of random keywords with random values, nested a few levels through `properties` and `items`. */
function randomSchema(rand: () => number, depth = 0): unknown {
  const schema: Record<string, unknown> = {};
  const n = Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) {
    const key = KEYS[Math.floor(rand() * KEYS.length)]!;
    const nest = depth < 3 && rand() < 0.3;
    if (nest && key === 'properties')
      schema[key] = { a: randomSchema(rand, depth + 1), b: randomSchema(rand, depth + 1) };
    else if (nest && (key === 'items' || key === 'additionalProperties'))
      schema[key] = randomSchema(rand, depth + 1);
    else schema[key] = VALUES[Math.floor(rand() * VALUES.length)]!();
  }
  return schema;
}

describe('plainlyValid: the shortcut past the meta-schema', () => {
  it('says yes to the plain schemas tools have, as the meta-schema does', () => {
    for (const schema of plain) {
      expect(plainlyValid(schema), JSON.stringify(schema)).toBe(true);
      expect(metaValid(schema), JSON.stringify(schema)).toBe(true);
    }
  });

  it('leaves every schema outside its list to the validator', () => {
    for (const schema of leftToValidator)
      expect(plainlyValid(schema), String(JSON.stringify(schema))).toBe(false);
  });

  it('never says yes where the meta-schema says no (20,000 generated schemas)', () => {
    const rand = prng(36);
    let yes = 0;
    let no = 0;
    for (let i = 0; i < 20_000; i++) {
      const schema = randomSchema(rand);
      if (plainlyValid(schema)) {
        yes++;
        if (!metaValid(schema))
          expect.fail(`the shortcut accepts what the meta-schema refuses: ${JSON.stringify(schema)}`);
      } else if (!metaValid(schema)) no++;
    }
    // Both sides well represented, or the check above proves little.
    expect(yes).toBeGreaterThan(2_000);
    expect(no).toBeGreaterThan(2_000);
  });

  it('stops at its depth bound and hands deeper schemas to the validator', () => {
    let deep: unknown = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { x: deep } };
    expect(plainlyValid(deep)).toBe(false);
    expect(schemaProblems(deep).invalid).toEqual([]);
  });

  it('changes no problem a tool schema is reported with', () => {
    // The same schemas through schemaProblems: the refused ones keep their messages (the validator still runs).
    expect(schemaProblems({ type: 'object', properties: { a: { type: 'strng' } } }).invalid).toEqual([
      { path: ['properties', 'a', 'type'], message: expect.stringContaining('`type` must be one of') },
    ]);
    expect(schemaProblems({ enum: ['a', 'a'] }).invalid).not.toEqual([]);
    expect(schemaProblems({ description: 3 }).annotations).not.toEqual([]);
    for (const schema of plain)
      expect(schemaProblems(schema)).toEqual({ invalid: [], defaults: [], annotations: [] });
  });
});
