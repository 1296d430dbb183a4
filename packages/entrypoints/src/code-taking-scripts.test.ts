import { describe, expect, it } from 'vitest';
import { awkRunsCommands, sedRunsCommands } from './code-taking-scripts.js';

describe('awkRunsCommands', () => {
  it.each([
    ['{ system($0) }', true],
    ['{ "date" | getline d; print d }', true],
    ['{ print | "sort" }', true],
    ['{ print |& "cat" }', true],
    ['{ print $1 }', false],
    ['/a|b/ { n++ } END { print n }', false],
    ['{ if (a || b) print "x|y" }', false],
    ['$1 ~ /x|y/ { print > "out" }', false],
    ['# a | comment\n{ print }', false],
  ])('%s: %s', (program, expected) => {
    expect(awkRunsCommands(program)).toBe(expected);
  });
});

describe('sedRunsCommands', () => {
  it.each([
    ['e touch F', true],
    ['1e date', true],
    ['s/a/b/e', true],
    ['s/a/b/ge', true],
    ['/x/ { s|a|b|; e date\n}', true],
    ['s/a/b/w out.txt', false],
    ['s/a/b/g; /x/d; 3,5p', false],
    ['y/abc/xyz/', false],
    ['/e/d', false],
    ['a\\\nappended e text', false],
    ['s/a/', true],
    ['K', true],
  ])('%s: %s', (script, expected) => {
    expect(sedRunsCommands(script)).toBe(expected);
  });
});
