import { describe, expect, it } from 'vitest';
import { parseTemplate, placeholderNames } from './template.js';

describe('parseTemplate', () => {
  it('splits text and placeholders and unescapes doubled braces', () => {
    expect(parseTemplate('a {{b}} {c}{d_e-f}}}', 'w')).toEqual([
      { kind: 'text', text: 'a {b} ', offsets: [0, 1, 2, 4, 5, 7] },
      { kind: 'placeholder', name: 'c', offset: 8 },
      { kind: 'placeholder', name: 'd_e-f', offset: 11 },
      { kind: 'text', text: '}', offsets: [18] },
    ]);
  });

  it('lists each name once, in first-use order', () => {
    expect(placeholderNames(parseTemplate('{b} {a} {b}', 'w'))).toEqual(['b', 'a']);
  });

  it.each(['{', '}', '{ x}', '{x y}', '{}', 'a {x'])('refuses %j with bad-template', (template) => {
    expect(() => parseTemplate(template, 'w')).toThrow(expect.objectContaining({ code: 'bad-template' }));
  });
});
