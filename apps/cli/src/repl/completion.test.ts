import { describe, expect, it } from 'vitest';
import { type Completions, commandMenu, complete } from './completion.js';

const completions: Completions = {
  commands: [
    ['/help', 'this list'],
    ['/skill enable|disable NAME', 'change it'],
    ['/session new|switch ID', 'manage sessions'],
    ['/quit, /exit', 'leave'],
  ],
  words: (before) =>
    before.startsWith('/skill ')
      ? before.split(' ').length === 2
        ? ['enable', 'disable', 'list', 'reload']
        : ['filesystem', 'fetch', 'shell']
      : before.startsWith('/session switch ')
        ? ['2026-11-24_1', '2026-11-24_2']
        : [],
};

describe('Tab completion', () => {
  it('completes commands, subcommands and names as far as they agree, and lists the rest', () => {
    expect(complete('/he', completions)).toEqual({ line: '/help ', options: [] });
    expect(complete('/s', completions)).toEqual({ line: '/s', options: ['/session', '/skill'] });
    expect(complete('/ski', completions)).toEqual({ line: '/skill ', options: [] });
    expect(complete('/skill en', completions)).toEqual({ line: '/skill enable ', options: [] });
    expect(complete('/skill enable f', completions)).toEqual({
      line: '/skill enable f',
      options: ['fetch', 'filesystem'],
    });
    expect(complete('/skill enable fi', completions)).toEqual({
      line: '/skill enable filesystem ',
      options: [],
    });
    expect(complete('/session switch 2026', completions)).toEqual({
      line: '/session switch 2026-11-24_',
      options: [],
    });
    expect(complete('hello wor', completions)).toEqual({ line: 'hello wor', options: [] });
  });

  it('a known pool (a server answered) completes the last word; an argument name stays open for its value', async () => {
    const { completeWith } = await import('./completion.js');
    expect(completeWith('/s:p d', ['department=', 'name='])).toEqual({
      line: '/s:p department=',
      options: [],
    });
    expect(completeWith('/s:p department=S', ['department=Sales', 'department=Support'])).toEqual({
      line: '/s:p department=S',
      options: ['department=Sales', 'department=Support'],
    });
  });

  it('the / menu lists the matching commands with their descriptions', () => {
    expect(commandMenu('/s', completions).map(([u]) => u)).toEqual([
      '/skill enable|disable NAME',
      '/session new|switch ID',
    ]);
    expect(commandMenu('/', completions)).toHaveLength(4);
    expect(commandMenu('/skill e', completions)).toEqual([]);
    expect(commandMenu('hi', completions)).toEqual([]);
  });
});
