import type { McpElicitationRequest } from '@birdie/graph';
import { describe, expect, it } from 'vitest';
import { fieldTextProblem, fieldTextValue, formFields } from './elicitation-form.js';

const form = (properties: Record<string, unknown>, required: string[] = []) =>
  ({
    message: 'Tell me',
    requestedSchema: { type: 'object', properties, required },
  }) as McpElicitationRequest;

describe("an MCP server's form", () => {
  it('reads each field as the kind of question it needs, in order', () => {
    const fields = formFields(
      form(
        {
          name: { type: 'string', title: 'Name', description: 'Yours' },
          age: { type: 'integer', default: 30 },
          ratio: { type: 'number' },
          ok: { type: 'boolean', default: true },
          size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
          tone: { type: 'string', oneOf: [{ const: 'warm', title: 'Warm' }, { const: 'cold' }] },
          tags: { type: 'array', items: { enum: ['a', 'b'] }, minItems: 1 },
          picks: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }] } },
        },
        ['name'],
      ),
    );
    expect(fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ['name', 'text', true],
      ['age', 'integer', false],
      ['ratio', 'number', false],
      ['ok', 'boolean', false],
      ['size', 'choice', false],
      ['tone', 'choice', false],
      ['tags', 'many', false],
      ['picks', 'many', false],
    ]);
    expect(fields[0]).toMatchObject({ title: 'Name', description: 'Yours' });
    expect(fields[1]).toMatchObject({ title: 'age', default: 30 });
    expect(fields[4]?.choices).toEqual([
      { value: 's', label: 'Small' },
      { value: 'm', label: 'Medium' },
    ]);
    expect(fields[5]?.choices).toEqual([
      { value: 'warm', label: 'Warm' },
      { value: 'cold', label: 'cold' },
    ]);
    expect(fields[6]).toMatchObject({ atLeastOne: true, choices: [{ value: 'a' }, { value: 'b' }] });
    expect(fields[7]).toMatchObject({ atLeastOne: false, choices: [{ value: 'x', label: 'X' }] });
  });

  it('checks typed text and turns it into the value sent', () => {
    const [name, age, ratio] = formFields(
      form({ name: { type: 'string' }, age: { type: 'integer', default: 3 }, ratio: { type: 'number' } }, [
        'name',
        'age',
      ]),
    );
    expect(fieldTextProblem(name!, '')).toBe('required');
    expect(fieldTextProblem(age!, '')).toBeUndefined();
    expect(fieldTextProblem(age!, 'x')).toBe('a number, please');
    expect(fieldTextProblem(age!, '2.5')).toBe('a whole number, please');
    expect(fieldTextProblem(ratio!, '2.5')).toBeUndefined();
    expect(fieldTextValue(age!, '')).toBe(3);
    expect(fieldTextValue(ratio!, '2.5')).toBe(2.5);
    expect(fieldTextValue(name!, '007')).toBe('007');
  });
});
