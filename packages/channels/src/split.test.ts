import { describe, expect, it } from 'vitest';
import { splitMarkdown } from './split.js';

describe('splitMarkdown', () => {
  it('keeps a short text whole', () => {
    expect(splitMarkdown('hello **world**', 100)).toEqual(['hello **world**']);
  });

  it('cuts at a paragraph break near the end, within the limit', () => {
    const text = `${'a '.repeat(30).trim()}\n\n${'b '.repeat(30).trim()}`;
    const pieces = splitMarkdown(text, 80);
    expect(pieces).toEqual(['a '.repeat(30).trim(), 'b '.repeat(30).trim()]);
  });

  it('closes a code fence cut in two and opens it again with its language', () => {
    const code = Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n');
    const pieces = splitMarkdown(`Look:\n\n\`\`\`ts\n${code}\n\`\`\`\n\nDone.`, 120);
    expect(pieces.length).toBeGreaterThan(2);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(120);
      expect((piece.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(pieces[1]?.startsWith('```ts\n')).toBe(true);
    expect(pieces.join('\n').replace(/\n```\n```ts\n/g, '\n')).toContain(code);
  });

  it('cuts a text without spaces at the limit', () => {
    const pieces = splitMarkdown('x'.repeat(250), 100);
    expect(pieces.every((p) => p.length <= 100)).toBe(true);
    expect(pieces.join('')).toBe('x'.repeat(250));
  });
});
