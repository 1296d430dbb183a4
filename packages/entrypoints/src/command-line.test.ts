import { describe, expect, it } from 'vitest';
import { isCodeArgument } from './command-arguments.js';
import { readCommandLine } from './command-line.js';

const words = (line: string) => {
  const reading = readCommandLine(line);
  if (!reading.placed) throw new Error(`${line}: ${reading.reason}`);
  return reading.commands.map((c) => c.words);
};
const refusal = (line: string) => {
  const reading = readCommandLine(line);
  if (reading.placed) throw new Error(`${line} was placed`);
  return [reading.offset, reading.reason];
};

describe('readCommandLine', () => {
  it('gives each simple command its words after quote removal, and its place in the line', () => {
    expect(readCommandLine("git log --oneline | head -5 && echo 'a b'")).toEqual({
      placed: true,
      commands: [
        { words: ['git', 'log', '--oneline'], start: 0, end: 17 },
        { words: ['head', '-5'], start: 20, end: 27 },
        { words: ['echo', 'a b'], start: 31, end: 41 },
      ],
    });
    expect(words('\'git\' "status"')).toEqual([['git', 'status']]);
    expect(words('echo "a\\"b\\\\c\\d"')).toEqual([['echo', 'a"b\\c\\d']]);
    expect(words('ls 2>/dev/null >&2 <<< "x"; cat')).toEqual([['ls'], ['cat']]);
    expect(words('echo a2>/dev/null')).toEqual([['echo', 'a2']]);
    expect(words('a\n\nb;\n')).toEqual([['a'], ['b']]);
    expect(words('echo x=1 a=b')).toEqual([['echo', 'x=1', 'a=b']]);
  });

  it('refuses, with the offset, what it does not place', () => {
    expect(refusal('git status \\ #; touch F')).toEqual([11, 'a backslash outside quotes']);
    expect(refusal('echo $(id)')[0]).toBe(5);
    expect(refusal('echo "`id`"')[0]).toBe(6);
    expect(refusal('PATH=. ls')).toEqual([
      0,
      'an assignment before the command (it changes what runs or how)',
    ]);
    expect(refusal('ls > .git/hooks/x')).toEqual([3, 'a redirection to a file other than /dev/null']);
    expect(refusal('a; ;')).toEqual([3, '`;` without a command before it']);
    expect(refusal('git status &&')[1]).toBe('the line ends after an operator that needs a command');
    expect(refusal('ｇit')).toEqual([0, 'the character U+FF47 outside quotes']);
    expect(refusal('cd x && ls')[1]).toMatch(/changes what later commands run/);
    expect(refusal('printf -v PATH x')).toEqual([7, '`printf -v` assigns a variable']);
    expect(refusal('for x in a; do b; done')[1]).toBe('the reserved word `for`');
  });
});

describe('isCodeArgument', () => {
  it('is every argument of a program that runs other commands, and the code-taking options of the table', () => {
    expect(isCodeArgument(['env', 'git', 'status'], 1)).toBe(true);
    expect(isCodeArgument(['/usr/bin/sudo', 'ls'], 1)).toBe(true);
    expect(isCodeArgument(['git', 'log', '--output=x'], 2)).toBe(true);
    expect(isCodeArgument(['git', 'log', '--oneline'], 2)).toBe(false);
    expect(isCodeArgument(['perl', '-ne', 'print'], 1)).toBe(true);
    expect(isCodeArgument(['ls', '-la'], 1)).toBe(false);
  });
});
