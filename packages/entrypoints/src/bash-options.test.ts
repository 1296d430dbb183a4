import { describe, expect, it } from 'vitest';
import { optionProblem } from './bash-options.js';
import { compileBashTemplate } from './bash-script.js';

const exposed = (template: string) =>
  Object.fromEntries(
    [...compileBashTemplate(template).options].map(([name, e]) => [name, `${e.command}/${e.rule}`]),
  );

describe('option exposure of placeholders', () => {
  it.each([
    ['cat {path}', { path: 'cat/dash' }],
    ['ls -la {path}', { path: 'ls/dash' }],
    ['rm -rf {path}', { path: 'rm/dash' }],
    ['git log {a} -- {b}', { a: 'git/dash' }],
    ['cat "{a}" \'{b}\' ""{c}', { a: 'cat/dash', b: 'cat/dash', c: 'cat/dash' }],
    // a placeholder or expansion before it may be empty, so the value can still start the word
    ['cat "{a}{b}" $HOME{c}', { a: 'cat/dash', b: 'cat/dash', c: 'cat/dash' }],
    ['if cat {a}; then :; fi | wc {b}', { a: 'cat/dash', b: 'wc/dash' }],
    ['X=1 2>/dev/null cat {a} > {b}', { a: 'cat/dash' }],
    ['echo "$(ls {dir})"', { dir: 'ls/dash' }],
    ['function f {{ cat {a}; }}', { a: 'cat/dash' }],
    ['echo "{content}" > {path}', { content: 'echo/echo' }],
    ['echo -n -e {a}', { a: 'echo/echo' }],
    ['command echo {a}; builtin echo {b}', { a: 'echo/echo', b: 'echo/echo' }],
    // /bin/echo reads --help and --version
    ['env echo {a}; exec echo {b}', { a: 'echo/dash', b: 'echo/dash' }],
    ['echo {a}; cat {a}', { a: 'cat/dash' }],
    // `--` of a prefix command ends its options, not the command's; -u takes a value
    ['sudo -u bob -- cat {a}', { a: 'cat/dash' }],
    ['env -u HOME -- cat {a}', { a: 'cat/dash' }],
    // brace expansion makes words that start with the value
    ['cat {{,}}{a} {{-,x}}{b} {{1..2}}{c}', { a: 'cat/dash', b: 'cat/dash', c: 'cat/dash' }],
    ['$tool {a}', { a: 'the command/dash' }],
    // find reads `find -- -delete` as an expression
    ['find -- {a} -maxdepth 0; [ -- {b} ]', { a: 'find/dash', b: '[/dash' }],
    // the word after a find primary that takes one is that primary's argument, whatever it starts with (reported:
    // `find {dir} -name {pat}` refused the pattern "-delete", which find reads as a name)
    ['find {dir} -name {pat}', { dir: 'find/dash' }],
    // after --, expr reads no options, but its operators still
    ['expr -- {a} + 1', { a: 'expr/undefined' }],
    // a value that reaches a variable is exposed where the variable stands
    ['x={a}; cat "$x"', { a: 'cat/dash' }],
  ])('%j exposes %j', (template, expected) => {
    expect(exposed(template)).toEqual(expected);
  });

  it.each([
    'cat -- {path}',
    'ls -la -- {path}',
    'cat ./{a} --name={b} x{c} "a {d}" \'-{e}\' ~/{f}',
    'TZ={v} env TERM={w} cat -- {x}',
    'cat < {a} 2> {b} >>{c} &>{d} 2>&1',
    'cat <<< {s}',
    'cat <<EOF\n{h} "{h}"\nEOF',
    '[[ -f {a} && {b} == x ]]',
    'for x in {a}; do :; done; case {b} in *) :;; esac',
    'printf \'%s\\n\' {a} "{b}"',
    'printf -- {fmt}',
    'echo hello {a}',
    'echo -- {a}',
    'echo ">" {a}',
    'echo hi # {a}',
    'cat {{x}}{a} @{{x}}{b}',
    'sudo -u bob cat -- {a}',
    'find . -iname {a} -o -path {b} -newer {c} -size {d} -type {e} -maxdepth {f}',
    'find . -fprintf {file} {format} -regextype {t} -regex {r} -newermt {when}',
  ])('%j is operand-safe', (template) => {
    expect(exposed(template)).toEqual({});
  });
});

describe('operators of expression-taking commands', () => {
  it.each([
    ['find {a} -delete', ['!', '(', ')', ',']],
    ['test {a} = x', ['!', '(', ')', ',']],
    ['expr {a} + 1', ['length', ':', '*', '<=', '==']],
  ])('%j refuses %j', (template, values) => {
    const [exposure] = compileBashTemplate(template).options.values();
    for (const value of values) expect(optionProblem('a', value, exposure!), value).toContain('operator');
    expect(optionProblem('a', 'file.txt', exposure!)).toBeUndefined();
  });

  it('lets an operator through when the schema lists it', () => {
    const [exposure] = compileBashTemplate('find . {a} -print').options.values();
    expect(optionProblem('a', '!', exposure!, { enum: ['!', '-true'] })).toBeUndefined();
  });
});

describe('optionProblem', () => {
  const dash = { command: 'cat', rule: 'dash' } as const;
  const echo = { command: 'echo', rule: 'echo' } as const;

  it('refuses strings starting with "-" under the dash rule, naming the argument, command and a fix', () => {
    for (const value of ['-', '--', '--version', '-rf /', '-n']) {
      expect(optionProblem('path', value, dash), value).toContain('"path"');
    }
    expect(optionProblem('path', '--version', dash)).toBe(
      'argument "path" is "--version", which starts with "-", so cat would read it as an option; nothing was run. If it names a file, pass it as "./--version" (a template can accept such values by putting -- before {path})',
    );
  });

  it('lets numbers and other strings through', () => {
    expect(optionProblem('n', -5, dash)).toBeUndefined();
    expect(optionProblem('n', 'a-b', dash)).toBeUndefined();
    expect(optionProblem('n', ' -x', dash)).toBeUndefined();
    expect(optionProblem('n', './-x', dash)).toBeUndefined();
  });

  it("lets through a value the schema's author listed (enum, const, default)", () => {
    expect(optionProblem('flags', '-la', dash, { enum: ['-l', '-la'] })).toBeUndefined();
    expect(optionProblem('flags', '-l', dash, { const: '-l' })).toBeUndefined();
    expect(optionProblem('flags', '-l', dash, { default: '-l' })).toBeUndefined();
    expect(optionProblem('flags', '-rf', dash, { enum: ['-l', '-la'], default: '-l' })).toBeDefined();
  });

  it('refuses under the echo rule only what echo reads as options', () => {
    for (const value of ['-n', '-e', '-E', '-neE', '-nn'])
      expect(optionProblem('content', value, echo), value).toMatch(/echo would take as an option/);
    for (const value of ['-', '--', '--help', '- item', '---\ntitle: x', '-n\n', '-x'])
      expect(optionProblem('content', value, echo), value).toBeUndefined();
  });
});
