import { describe, expect, it } from 'vitest';
import { applyDefaults, argsPreparer } from './json-args.js';

const schema = Object.freeze({
  type: 'object',
  properties: {
    query: { type: 'string' },
    max_results: { type: 'integer', default: 5 },
    options: { type: 'object', properties: { safe: { type: 'boolean', default: true } } },
  },
  required: ['query'],
});

describe('tool arguments', () => {
  it('applies defaults, recursively, without touching the input', () => {
    const input = { query: 'x', options: {} };
    expect(applyDefaults(schema, input)).toEqual({ query: 'x', max_results: 5, options: { safe: true } });
    expect(input).toEqual({ query: 'x', options: {} });
  });

  it('validates against the JSON Schema and explains what is wrong', () => {
    const prepare = argsPreparer(schema);
    expect(prepare({ query: 'x' })).toEqual({ ok: true, args: { query: 'x', max_results: 5 } });
    const missing = prepare({});
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toMatch(/Invalid arguments[\s\S]*query/);
    const wrongType = prepare({ query: 'x', max_results: 'many' });
    expect(wrongType.ok).toBe(false);
    if (!wrongType.ok) expect(wrongType.error).toMatch(/max_results/);
  });
});
