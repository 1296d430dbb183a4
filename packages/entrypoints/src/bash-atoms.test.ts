// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash, not JS templates
import { describe, expect, it } from 'vitest';
import { atomsOf } from './bash-atoms.js';

const kinds = (text: string) =>
  atomsOf(text).map((a) => (a.kind === 'var' || a.kind === 'mention' ? `${a.kind}:${a.name}` : a.kind));

describe('atomsOf', () => {
  it.each([
    ['$x', ['var:x']],
    ['"${x}"', ['var:x']],
    ['${x:-$y}', ['var:x', 'var:y']],
    ['n + 1', ['mention:n']],
    ["'n'", ['mention:n']],
    ['16#ff + 0x1f', []],
    ['${#x}', []],
    ['${!x}', ['var:@', 'names']],
    ['${x:1}', ['var:x', 'names']],
    ['$(cat f)', ['output']],
    ['`cat f`', ['output']],
    ['m$y', ['mention:m', 'var:y', 'names']],
    ['$a$b', ['var:a', 'var:b', 'names']],
    ['"$dir/$file"', ['var:dir', 'var:file']],
    ['$1 $@ $_', ['var:1', 'var:@', 'var:_']],
  ])('%j → %j', (text, expected) => {
    expect(kinds(text)).toEqual(expected);
  });

  it('reads the marks of values and of command output in order', () => {
    const placeholder = { kind: 'placeholder', name: 'p' } as const;
    expect(atomsOf('a \u0001 \u0004', [placeholder], [[{ kind: 'var', name: 'z' }]])).toEqual([
      { kind: 'mention', name: 'a' },
      placeholder,
      { kind: 'output', inner: [{ kind: 'var', name: 'z' }] },
    ]);
  });
});
