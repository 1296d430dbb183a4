import { describe, expect, it } from 'vitest';
import { fitWidth, LastLines, screenText } from './live-lines.js';

describe('LastLines', () => {
  it('keeps the last complete lines and the line being written, across chunk boundaries', () => {
    const lines = new LastLines(3);
    lines.push('one\ntw');
    lines.push('o\nthree\nfour\nfi');
    expect(lines.last(5)).toEqual(['two', 'three', 'four', 'fi']);
    expect(lines.last(2)).toEqual(['four', 'fi']);
  });

  it('shows a progress bar rewritten with carriage returns as its latest state, without escape sequences', () => {
    const lines = new LastLines(5);
    lines.push('\x1b[32m10%\x1b[0m\r50%\r90%');
    expect(lines.last(1)).toEqual(['90%']);
    lines.push('\r100%\r\n\x1b]0;title\x07done\x1b[2J\tx\n');
    expect(lines.last(2)).toEqual(['100%', 'done  x']);
  });
});

describe('screen fitting', () => {
  it('cuts a long line to the width with an ellipsis, counting wide characters as two columns', () => {
    expect(fitWidth('abcdef', 10)).toBe('abcdef');
    expect(fitWidth('abcdefghijkl', 6)).toBe('abcde…');
    expect(fitWidth('日本語のテキスト', 7)).toBe('日本語…');
    expect(fitWidth('abc', 0)).toBe('');
  });

  it('drops control characters a tool could use to move the cursor', () => {
    expect(screenText('a\x08b\x1b[1Ac\u009b')).toBe('abc');
  });
});
