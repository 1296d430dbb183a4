import { describe, expect, it } from 'vitest';
import { WordWrap, wrapWords } from './word-wrap.js';

function wrap(pieces: string[], width: number): string {
  let out = '';
  const w = new WordWrap(
    (t) => {
      out += t;
    },
    () => width,
  );
  for (const piece of pieces) w.push(piece);
  w.end();
  return out;
}

describe('WordWrap', () => {
  it('moves a word that would cross the edge to the next line, whatever the token boundaries', () => {
    const text = 'the quick brown fox jumps over the lazy dog';
    const expected = 'the quick brown\nfox jumps over\nthe lazy dog';
    expect(wrap([text], 16)).toBe(expected);
    expect(wrap(text.split(/(?<= )/), 16)).toBe(expected);
    expect(wrap([...text], 16)).toBe(expected);
  });

  it('keeps line breaks, and passes a word longer than a line through', () => {
    expect(wrap(['ab\ncd ef'], 5)).toBe('ab\ncd ef');
    expect(wrap(['x ', 'abcdefghij', ' y'], 4)).toBe('x abcdefghij y');
  });
});

describe('wrapWords', () => {
  it('wraps a whole text between words, its first line starting after what is already on the line', () => {
    expect(wrapWords('could not be reached at http://127.0.0.1:1234: connection refused', 32, 7)).toBe(
      'could not be reached at\nhttp://127.0.0.1:1234:\nconnection refused',
    );
    expect(wrapWords('one two\nthree four', 9)).toBe('one two\nthree\nfour');
    expect(wrapWords('short', 80, 10)).toBe('short');
  });
});
