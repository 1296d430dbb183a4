import { describe, expect, it } from 'vitest';
import { parseSkill } from '../src/index.js';

// Review: the meta-schema check refused tools for mistakes in annotations only (a `$schema` that is not a URI, a
// numeric `description`, a repeated `required` name), none of which stops an argument from matching; and it read a
// property named `type` as the `type` keyword.

const skill = (schema: string) =>
  `---\nname: s\ndescription: A skill.\n---\n\n## Tools\n\n### t\ndescription: A tool.\nentrypoint: bash:true\nschema:\n${schema}`;
const diagnostics = (schema: string) =>
  parseSkill(skill(schema), { path: '/x/s/SKILL.md' }).messages.map((m) => ({
    rule: m.ruleId,
    severity: m.fatal ? 'error' : 'warning',
    message: m.reason,
  }));

describe('annotations that do not fit the meta-schema are warnings; the tool loads', () => {
  it.each([
    ['a $schema that is not a URI', '  $schema: draft-07\n  type: object\n  properties: {}\n', '$schema'],
    ['a numeric description', '  type: object\n  description: 5\n  properties: {}\n', 'description'],
    [
      'a title that is not text',
      '  type: object\n  properties:\n    a: { type: string, title: true }\n',
      'title',
    ],
    [
      'examples that are not a list',
      '  type: object\n  properties:\n    a: { type: string, examples: x }\n',
      'examples',
    ],
    [
      'a name required twice',
      '  type: object\n  properties:\n    a: { type: string }\n  required: [a, a]\n',
      'required',
    ],
  ])('%s', (_what, schema, keyword) => {
    const found = diagnostics(schema);
    expect(found.filter((d) => d.severity === 'error')).toEqual([]);
    expect(found).toContainEqual(
      expect.objectContaining({
        rule: 'tool-schema-annotation',
        severity: 'warning',
        message: expect.stringContaining(keyword),
      }),
    );
    const parsed = parseSkill(skill(schema), { path: '/x/s/SKILL.md' });
    expect(parsed.skill?.tools.map((t) => t.name)).toEqual(['t']);
  });
});

describe('a property named `type` is a property, not the keyword', () => {
  it('its broken schema is said as such', () => {
    const found = diagnostics("  type: object\n  properties:\n    type: { enum: 'a' }\n");
    expect(found).toHaveLength(1);
    expect(found[0]!.rule).toBe('tool-invalid-schema');
    expect(found[0]!.message).not.toMatch(/`type` must be one of/);
    expect(found[0]!.message).toMatch(/properties\.type\.enum/);
  });

  it('a misspelt type keyword is still said as one', () => {
    const found = diagnostics('  type: object\n  properties:\n    a: { type: strng }\n');
    expect(found[0]).toMatchObject({ rule: 'tool-invalid-schema', severity: 'error' });
    expect(found[0]!.message).toMatch(/`type` must be one of/);
  });
});
