import { expect, it } from 'vitest';
import { oneLine } from './session-titles.js';

// Titles (a first prompt, a triggered run's "agent: watch …" label) are cut to a store title, which counts code points
// and refuses half of a surrogate pair.

it('cuts between code points, never inside a surrogate pair', () => {
  expect(oneLine('🦉'.repeat(150), 200)).toBe('🦉'.repeat(150));
  expect(oneLine(`x${'🦉'.repeat(250)}`, 200)).toBe(`x${'🦉'.repeat(198)}…`);
  expect(oneLine('🦉'.repeat(61))).toBe(`${'🦉'.repeat(59)}…`);
});

it('makes a lone surrogate U+FFFD, so the title is one the store takes', () => {
  expect(oneLine('owl \uD83E and bat \uDD87', 200)).toBe('owl \uFFFD and bat \uFFFD');
  expect(oneLine('owl \uD83E\uDD89', 200)).toBe('owl 🦉');
});

it('makes one line of whitespace and control characters', () => {
  expect(oneLine('  a\n\tb\u0007c  ')).toBe('a b c');
});
