import { expect, it } from 'vitest';
import { TITLE_MAX_CHARS, titleProblem } from './title.js';

it('counts a title in characters (code points), not UTF-16 units', () => {
  expect(TITLE_MAX_CHARS).toBe(200);
  expect(titleProblem('🦉'.repeat(200))).toBeUndefined();
  expect(titleProblem('🦉'.repeat(201))).toBe('a session title is 1-200 characters');
  expect(titleProblem('x'.repeat(200))).toBeUndefined();
  expect(titleProblem('x'.repeat(201))).toBe('a session title is 1-200 characters');
});

it('refuses half of a character (a lone surrogate), which no database stores as it was given', () => {
  for (const title of ['owl \uD83E', '\uDD89 owl', 'a\uD83Eb'])
    expect(titleProblem(title)).toBe('a session title is text without a lone surrogate (half of a character)');
  expect(titleProblem('owl \uD83E\uDD89')).toBeUndefined();
});
