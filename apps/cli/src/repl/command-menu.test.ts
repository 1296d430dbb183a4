import { textWidth } from '@birdie/terminal/text-width';
import { describe, expect, it } from 'vitest';
import { fitRows, menuRows } from './command-menu.js';

const plain = (_format: unknown, text: string) => text;
const menu = [
  ['/help', 'this list'],
  ['/skill enable|disable NAME', 'change it for this session (saved; applies next turn)'],
  ['/session new|switch ID', 'manage sessions'],
  ['/quit, /exit', 'leave'],
] as const;

describe('the / menu', () => {
  it('one row per command, the descriptions in one column, where the terminal is wide and tall', () => {
    expect(menuRows(menu, 120, 20, plain)).toEqual([
      '  /help                       this list',
      '  /skill enable|disable NAME  change it for this session (saved; applies next turn)',
      '  /session new|switch ID      manage sessions',
      '  /quit, /exit                leave',
    ]);
  });

  it('cuts the descriptions to the width, then leaves them out, and never reaches the last column', () => {
    expect(menuRows(menu, 50, 20, plain)[1]).toBe('  /skill enable|disable NAME  change it for this…');
    expect(menuRows(menu, 40, 20, plain)).toEqual([
      '  /help',
      '  /skill enable|disable NAME',
      '  /session new|switch ID',
      '  /quit, /exit',
    ]);
    for (let columns = 4; columns <= 100; columns++)
      for (const row of menuRows(menu, columns, 20, plain)) expect(textWidth(row)).toBeLessThan(columns);
  });

  it('takes at most the rows left free, counting what it left out', () => {
    expect(menuRows(menu, 120, 3, plain).map((row) => row.trim())).toEqual([
      '/help                       this list',
      '/skill enable|disable NAME  change it for this session (saved; applies next turn)',
      '… 2 more: type to narrow',
    ]);
    expect(fitRows(['a', 'b', 'c'], 0)).toEqual(['… 3 more']);
    expect(fitRows(['a', 'b', 'c'], 3)).toEqual(['a', 'b', 'c']);
  });
});
