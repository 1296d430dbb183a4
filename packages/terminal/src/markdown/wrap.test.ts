import { describe, expect, it } from 'vitest';
import { rowsOf, textWidth } from '../text-width.js';
import { fit } from './table.js';
import { wrapStyled } from './wrap.js';

describe('wrapStyled', () => {
  it('breaks between words, and cuts a word longer than the line', () => {
    expect(wrapStyled('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrapStyled('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
  });

  it('closes a style open at a break and opens it again on the next line; spaces before a style stay unstyled', () => {
    const bold = '\x1b[1mtwo three\x1b[22m';
    expect(wrapStyled(`one ${bold} four`, 7)).toEqual([
      'one \x1b[1mtwo\x1b[0m',
      '\x1b[1mthree\x1b[22m',
      'four',
    ]);
    expect(wrapStyled('\x1b[36mab\x1b[39m cd', 2)).toEqual(['\x1b[36mab\x1b[39m', 'cd']);
  });

  it('counts wide characters as two columns and escapes as none', () => {
    expect(textWidth('\x1b[1m漢字\x1b[22m ok')).toBe(7);
    expect(wrapStyled('漢字 漢字', 4)).toEqual(['漢字', '漢字']);
    expect(rowsOf('abcdef\n\nab', 4)).toBe(4);
  });
});

describe('fit (table column widths)', () => {
  it('keeps the widths that fit, and shares the room among the widest columns otherwise', () => {
    expect(fit([3, 5, 4], 20)).toEqual([3, 5, 4]);
    expect(fit([3, 40, 30], 30)).toEqual([3, 14, 13]);
    expect(fit([10, 10], 1)).toEqual([1, 1]);
  });
});
