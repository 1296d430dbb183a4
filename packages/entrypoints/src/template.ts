import { EntrypointError } from './errors.js';

export type TemplatePart =
  /** `offsets[k]`: where `text[k]` stands in the template (`{{` is one `{`). */
  { kind: 'text'; text: string; offsets: number[] } | { kind: 'placeholder'; name: string; offset: number };

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Splits `a {name} b {{literal}}` into text and placeholder parts. A lone brace is an error rather than
 * literal text, so a typo never silently turns into shell syntax.
 */
export function parseTemplate(template: string, where: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  let offsets: number[] = [];
  let i = 0;
  while (i < template.length) {
    const ch = template[i]!;
    if ((ch === '{' || ch === '}') && template[i + 1] === ch) {
      text += ch;
      offsets.push(i);
      i += 2;
    } else if (ch === '{') {
      const close = template.indexOf('}', i + 1);
      const name = close === -1 ? '' : template.slice(i + 1, close);
      if (!NAME.test(name)) {
        throw new EntrypointError(
          'bad-template',
          `${where}: '{' at column ${i + 1} does not start a {name} placeholder; write '{{' for a literal brace`,
          { offset: i },
        );
      }
      if (text) parts.push({ kind: 'text', text, offsets });
      text = '';
      offsets = [];
      parts.push({ kind: 'placeholder', name, offset: i });
      i = close + 1;
    } else if (ch === '}') {
      throw new EntrypointError(
        'bad-template',
        `${where}: lone '}' at column ${i + 1}; write '}}' for a literal brace`,
        { offset: i },
      );
    } else {
      text += ch;
      offsets.push(i);
      i += 1;
    }
  }
  if (text) parts.push({ kind: 'text', text, offsets });
  return parts;
}

export function placeholderNames(parts: readonly TemplatePart[]): string[] {
  const names: string[] = [];
  for (const part of parts)
    if (part.kind === 'placeholder' && !names.includes(part.name)) names.push(part.name);
  return names;
}
