import { describe, expect, it } from 'vitest';
import { parseArgv } from './argv.js';
import { UsageError } from './io.js';

function usageError(argv: string[]): string {
  try {
    parseArgv(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('parseArgv: values that start with a dash', () => {
  it('a negative number after an option that takes a value is its value, for the command to check', () => {
    expect(parseArgv(['run', '--wait', '-1', 'x'])).toMatchObject({
      values: { wait: '-1' },
      positionals: ['x'],
    });
    expect(parseArgv(['logs', '-n', '-1'])).toMatchObject({ values: { n: '-1' } });
    expect(parseArgv(['logs', '-n', '-0.5', '--json'])).toMatchObject({ values: { n: '-0.5', json: true } });
  });

  it('a short option written with "=" takes what follows it, and never the next word when nothing does', () => {
    expect(parseArgv(['logs', '-n=5'])).toMatchObject({ values: { n: '5' } });
    expect(parseArgv(['logs', '-n=', '--json'])).toMatchObject({ values: { n: '=', json: true } });
  });

  it('a negative number where an argument goes is that argument, in its place', () => {
    expect(parseArgv(['config', 'set', 'context_window', '-5'])).toMatchObject({
      command: { name: 'config' },
      positionals: ['set', 'context_window', '-5'],
    });
    expect(
      parseArgv(['config', 'set', '--json', 'context_window', '-5', '--config', 'c.json']),
    ).toMatchObject({
      values: { json: true, config: 'c.json' },
      positionals: ['set', 'context_window', '-5'],
    });
    expect(usageError(['logs', 'show', '1', '-2'])).toContain('unexpected argument "-2"');
  });

  it("an option's value that is another option is birdie's own usage error, saying how to give such a value", () => {
    expect(usageError(['run', '--wait', '--json', 'x'])).toBe(
      '--wait needs a value, and "--json" is an option: to give a value that starts with "-", write --wait=VALUE. Run `birdie run --help`.',
    );
    expect(usageError(['logs', '-n', '-x'])).toBe(
      '-n needs a value, and "-x" is an option: to give a value that starts with "-", write -nVALUE. Run `birdie logs --help`.',
    );
  });

  it('every message node words ends its sentence before the hint', () => {
    expect(usageError(['tool', 'x', '--args'])).toBe(
      '--args needs a value (JSON). Run `birdie tool --help`.',
    );
    expect(usageError(['logs', '--json=yes'])).toBe(
      "Option '--json' does not take an argument. Run `birdie logs --help`.",
    );
  });
});
