import { textWidth } from '@birdie/terminal/text-width';
import { describe, expect, it } from 'vitest';
import { fittedTable, packParts, wrapText } from './screen-fit.js';

const rows = [
  ['/help', 'this list'],
  [
    '/skill enable|disable NAME',
    'change it for this session (saved; applies next turn); several names at once too',
  ],
] as const;

describe('fitting lines to a terminal', () => {
  it('wrapText breaks between words, cuts a word wider than a row, and never exceeds the width', () => {
    expect(wrapText('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('', 10)).toEqual(['']);
    for (let width = 1; width < 40; width++)
      for (const row of wrapText(rows[1][1], width)) expect(textWidth(row)).toBeLessThanOrEqual(width);
  });

  it('fittedTable is the plain table where it fits, wraps the second column beside the first, or puts it under', () => {
    expect(fittedTable(rows, Number.POSITIVE_INFINITY)).toBe(
      '/help                       this list\n' +
        '/skill enable|disable NAME  change it for this session (saved; applies next turn); several names at once too\n',
    );
    expect(fittedTable(rows, 60)).toBe(
      [
        '/help                       this list',
        '/skill enable|disable NAME  change it for this session',
        '                            (saved; applies next turn);',
        '                            several names at once too',
        '',
      ].join('\n'),
    );
    expect(fittedTable(rows, 40).split('\n').slice(0, 3)).toEqual([
      '/help                       this list',
      '/skill enable|disable NAME',
      '    change it for this session (saved;',
    ]);
    for (let columns = 2; columns < 120; columns++)
      for (const row of fittedTable(rows, columns).split('\n')) expect(textWidth(row)).toBeLessThan(columns);
  });

  it('packParts keeps parts whole on a row where they fit', () => {
    expect(packParts(['birdie 0.1.0', '/help for commands', 'Enter sends'], ' · ', 40)).toEqual([
      'birdie 0.1.0 · /help for commands',
      'Enter sends',
    ]);
  });
});
