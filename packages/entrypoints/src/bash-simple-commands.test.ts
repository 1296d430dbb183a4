// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash templates, not JS templates
import { describe, expect, it } from 'vitest';
import { matchesCommand, simpleCommands } from './bash-simple-commands.js';

const names = (template: string) =>
  simpleCommands(template)
    .filter((c) => c.words.length > 0)
    .map((c) => c.words.map((w) => w.map((p) => (p.kind === 'literal' ? p.text : '…')).join('')));

describe('simpleCommands', () => {
  it('lists each simple command with its words, values as expansions, redirections and reserved words left out', () => {
    expect(names('git status \\ #; touch F')).toEqual([
      ['git', 'status', ' #'],
      ['touch', 'F'],
    ]);
    expect(names('if [ -n "{v}" ]; then echo set > out; fi')).toEqual([
      ['[', '-n', '…', ']'],
      ['echo', 'set'],
    ]);
    expect(names('echo "$(ls -- {v})" | wc -l')).toEqual([
      ['ls', '--', '…'],
      ['echo', '…'],
      ['wc', '-l'],
    ]);
    expect(names('x={v}; eval \'echo "$x"\'')).toContainEqual(['echo', '…']);
  });

  it('matches an argv the command can produce, and no other', () => {
    const [ls] = simpleCommands('ls -la -- {v}');
    expect(matchesCommand(ls!, ['ls', '-la', '--', '$(touch F)'])).toBe(true);
    expect(matchesCommand(ls!, ['ls', '-la', '--', 'a', 'b'])).toBe(false);
    expect(matchesCommand(ls!, ['touch', 'F'])).toBe(false);
    expect(names('x=1; echo $x *')).toEqual([['echo', '…', '…']]);
    expect(matchesCommand(simpleCommands('x=1; echo $x *')[1]!, ['echo', 'a', 'b', 'c'])).toBe(true);
  });
});

describe('simpleCommands, cases the differential test found', () => {
  it('reads a process substitution as one word of its command, with commands of its own', () => {
    expect(names('xargs -a <(echo {v}) -I@ sh -c {v}')).toEqual([
      ['echo', '…'],
      ['xargs', '-a', '…', '-I@', 'sh', '-c', '…'],
    ]);
  });

  it("reads a placeholder inside '…' as an expansion, and `function NAME {` as no command", () => {
    expect(names("find . -exec sh -c 'echo {v}' \\;")).toEqual([
      ['find', '.', '-exec', 'sh', '-c', 'echo …', ';'],
    ]);
    expect(names('function g {{ printf \'%s\' "$1"; }}; g {v}')).toEqual([
      ['printf', '%s', '…'],
      ['g', '…'],
    ]);
  });
});
