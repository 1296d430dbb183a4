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

  it('refuses arguments a schema that lists its properties does not declare; allows them where it says so', () => {
    const closed = argsPreparer({ type: 'object', properties: { name: { type: 'string' } } });
    const extra = closed({ name: 'x', format: 'xml' });
    expect(extra.ok).toBe(false);
    if (!extra.ok) expect(extra.error).toContain('- format: not an argument of this tool (it takes: name)');
    expect(closed({ name: 'x' })).toEqual({ ok: true, args: { name: 'x' } });
    for (const open of [
      { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: true },
      { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: { type: 'string' } },
      { type: 'object', properties: { name: { type: 'string' } }, patternProperties: { '^x_': {} } },
      { type: 'object' },
    ])
      expect(argsPreparer(open)({ name: 'x', x_more: 'y' }).ok, JSON.stringify(open)).toBe(true);
    const none = argsPreparer({ type: 'object', properties: {} })({ a: 1 });
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error).toContain('- a: not an argument of this tool (it takes: none)');
  });

  it('blames a broken default only when the call relied on it', () => {
    const prepare = argsPreparer({
      type: 'object',
      properties: {
        unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'kelvin' },
        count: { type: 'integer' },
      },
    });
    const wrong = prepare({ unit: 'celsius', count: 'many' });
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) {
      expect(wrong.error).toMatch(/^Invalid arguments, fix them/);
      expect(wrong.error).toContain('count');
    }
    expect(prepare({ unit: 'celsius', count: 2 }).ok).toBe(true);
    const relied = prepare({ count: 2 });
    expect(relied.ok).toBe(false);
    if (!relied.ok) expect(relied.error).toMatch(/^The tool's schema is broken/);
  });

  it('says the schema is broken, not the arguments, when no call could satisfy it', () => {
    const badDefault = argsPreparer({
      type: 'object',
      properties: { unit: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'kelvin' } },
    });
    const left = badDefault({});
    expect(left.ok).toBe(false);
    if (!left.ok) {
      expect(left.error).toMatch(/^The tool's schema is broken \(not your arguments\)/);
      expect(left.error).toContain('properties.unit.default');
      expect(left.error).not.toContain('fix them');
    }
    const misspelt = argsPreparer({ type: 'object', properties: { value: { type: 'nubmer' } } })({
      value: 1,
    });
    expect(misspelt.ok).toBe(false);
    if (!misspelt.ok) expect(misspelt.error).toContain('properties.value.type');
    // The model's own mistake against a sound schema is still the model's to fix.
    const sound = argsPreparer({ type: 'object', properties: { n: { type: 'number' } } })({ n: 'x' });
    if (!sound.ok) expect(sound.error).toMatch(/^Invalid arguments, fix them/);
    expect(sound.ok).toBe(false);
  });
});
