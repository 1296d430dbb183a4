import { describe, expect, it } from 'vitest';
import { escapeInvisible } from '../src/visible-text.js';

describe('escapeInvisible', () => {
  it('writes out bidi controls, zero-width and tag characters as JSON-style escapes, and leaves other text alone', () => {
    expect(escapeInvisible('notes\u202etxt.sh')).toBe('notes\\u202etxt.sh');
    expect(escapeInvisible('a\u2066b\u2069\u200b\ufeff')).toBe('a\\u2066b\\u2069\\u200b\\ufeff');
    expect(escapeInvisible('x\u{e0041}')).toBe('x\\udb40\\udc41');
    expect(escapeInvisible('plain שלום — ✓')).toBe('plain שלום — ✓');
    const args = { path: 'notes\u202etxt.sh', tag: '\u{e0041}' };
    expect(JSON.parse(escapeInvisible(JSON.stringify(args)))).toEqual(args);
  });
});
