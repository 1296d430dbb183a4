// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash scripts, not JS templates
import { describe, expect, it } from 'vitest';
import { analyseBashTemplate, compileBashTemplate } from './bash-script.js';

/** The script for a body written with `${N}`: values are read from copies made before the body runs. */
function compiled(body: string, count: number): string {
  const prologue = Array.from({ length: count }, (_, k) => `birdie_${k + 1}=\${${k + 1}}`).join(' ');
  return `${count > 0 ? `${prologue}; ` : ''}${body.replace(/\$\{(\d+)\}/g, '${birdie_$1}')}`;
}

describe('compileBashTemplate', () => {
  it.each([
    ['cat {path}', 'cat "${1}"', ['path']],
    ['echo "{content}" > {path}', 'echo "${1}" > "${2}"', ['content', 'path']],
    ["grep '{pattern}' {file}", `grep ''"\${1}"'' "\${2}"`, ['pattern', 'file']],
    ["echo 'a {x} b'", `echo 'a '"\${1}"' b'`, ['x']],
    ["echo $'\\t{x}\\n'", `echo $'\\t'"\${1}"$'\\n'`, ['x']],
    ['echo "{a}{b}" {a}', 'echo "${1}${2}" "${1}"', ['a', 'b']],
    ['echo --name={n}', 'echo --name="${1}"', ['n']],
    ['echo "$(ls {dir})"', 'echo "$(ls "${1}")"', ['dir']],
    ['f() {{ echo {a}; }}; f', 'f() { echo "${1}"; }; f', ['a']],
    ['echo ${{HOME}} {x}', 'echo ${HOME} "${1}"', ['x']],
    ['cat <<EOF\n{x} "{y}"\nEOF\necho {z}', 'cat <<EOF\n${1} "${2}"\nEOF\necho "${3}"', ['x', 'y', 'z']],
    ['cat <<-EOF\n\t{x}\n\tEOF', 'cat <<-EOF\n\t${1}\n\tEOF', ['x']],
    ["echo hi # don't {x}\necho {y}", `echo hi # don't {x}\necho "\${2}"`, ['x', 'y']],
    ['[[ {a} == "{b}" ]] && echo y', '[[ "${1}" == "${2}" ]] && echo y', ['a', 'b']],
    ['echo "{n}1"', 'echo "${1}1"', ['n']],
    ["echo \\'{x}", 'echo \\\'"${1}"', ['x']],
  ])('%j → %j', (template, script, names) => {
    const { script: actual, names: order } = compileBashTemplate(template);
    expect({ script: actual, names: order }).toEqual({
      script: compiled(script as string, names.length),
      names,
    });
  });

  it('references the tenth and later parameters with braces', () => {
    const template = `echo ${Array.from({ length: 11 }, (_, k) => `{p${k}}`).join(' ')}`;
    const { script } = compileBashTemplate(template);
    expect(script.startsWith('birdie_1=${1} birdie_2=${2} ')).toBe(true);
    expect(script).toContain('birdie_10=${10} birdie_11=${11}; ');
    expect(script.endsWith('"${birdie_10}" "${birdie_11}"')).toBe(true);
  });

  it.each([
    ['echo $(( {n} + 1 ))', 'arithmetic'],
    ['(( {n} > 2 ))', 'arithmetic'],
    ['echo $[ {n} ]', 'arithmetic'],
    ['[[ {n} -gt 2 ]]', 'arithmetic comparison'],
    ['[[ {n} \\\n  -gt 2 ]]', 'arithmetic comparison'],
    ['[[ {n} -g\\\nt 2 ]]', 'arithmetic comparison'],
    ['echo ${{a[{i}]}}', 'subscript'],
    ['echo ${{x:-{y}}}', 'subscript'],
    ['echo `ls {x}`', 'backticks'],
    ["cat <<'EOF'\n{x}\nEOF", 'quoted here-document'],
    ['echo \\{x}', 'backslash'],
    ['echo "\\{x}"', 'backslash'],
    ['echo ${x}', "'$' right before"],
    ['echo "${x}"', "'$' right before"],
    ['echo "{x}', 'unterminated'],
    ["echo '{x}", 'unterminated'],
    ['echo $(ls {x}', 'unterminated'],
    ['cat <<EOF', 'without a body'],
    ['cat <<{x}\nhi\n', 'delimiter'],
    ['echo {x', 'does not start a {name}'],
    ['echo {1x}', 'does not start a {name}'],
    ['echo }', "lone '}'"],
    ['echo )', "unbalanced ')'"],
  ])('refuses %j (%s)', (template, reason) => {
    expect(() => compileBashTemplate(template)).toThrow(expect.objectContaining({ code: 'bad-template' }));
    expect(() => compileBashTemplate(template)).toThrow(reason);
  });

  it.each([
    'ls -la -- {path}',
    'echo x >> {path}',
    '>{f} echo hi',
    'echo hi &>{f}',
    'echo {x} 2>&1 | grep -- {y}',
    'TZ={v} printenv TZ',
    'env NO_COLOR={v} printenv NO_COLOR',
    'x={v}; printf %s "$x"',
    'f() {{ local x="{v}"; echo "$x"; }}; f',
    'if true; then echo {x}; fi',
    'for f in {a} {b}; do echo "$f"; done',
    'case {x} in a) echo {y};; (b) echo;; esac',
    'echo "$(case {x} in a) echo a;; esac) {y}"',
    '[[ {a} == b ]]',
    'test {a} = b',
    'git -C {dir} status',
    // `command -v`/`-V` only look a name up: the value is its argument, not the program
    'command -v -- {x} || echo none',
    'command -pV {x}',
  ])('accepts %j', (template) => {
    expect(() => compileBashTemplate(template)).not.toThrow();
  });

  it.each([
    ['{cmd} --help', 'command name'],
    ['./{script}', 'command name'],
    ['echo | {x}', 'command name'],
    ['echo a && {x}', 'command name'],
    ['if {x}; then :; fi', 'command name'],
    ['(cd /; {x})', 'command name'],
    ['echo $({x})', 'command name'],
    ['exec {x}', 'command name'],
    ['command {x}', 'command name'],
    ['command -p {x}', 'command name'],
    ['command -v x; command {x}', 'command name'],
    ['env -i {x}', 'command name'],
    ['sudo {x}', 'command name'],
    ['x=1 {x}', 'command name'],
    ['let "n={v}"', "'let'"],
    ['eval "echo {x}"', "'eval'"],
    ['\\eval {x}', "'eval'"],
    ['ev\\al {x}', "'eval'"],
    ["e'v'al {x}", "'eval'"],
    ['e$""val {x}', "'eval'"],
    ['command \\let n={x}', "'let'"],
    ['function f {{ eval {x}; }}; f', "'eval'"],
    ['coproc c {{ eval {x}; }}', "'eval'"],
    ['ev\\\nal {x}', "'eval'"],
    ['printf -\\\nv {x} y', 'printf -v'],
    ['trap {x} EXIT', "'trap'"],
    ['source {f}', "'source'"],
    ['. {f}', "'.'"],
    ['read {name}', "'read'"],
    ['mapfile -t {n} < f', "'mapfile'"],
    ['compgen -W {w}', "'compgen'"],
    ['declare {n}', 'variable name'],
    ['declare -i n={v}', '-i/-n'],
    ['local -n r={v}', '-i/-n'],
    ['printf -v {n} %s x', 'printf -v'],
    ['[ -v {n} ]', '-v'],
    ['[[ -v {n} ]]', '-v'],
    ['arr[{i}]=1', 'subscript'],
  ])('refuses %j, where the value would be code (%s)', (template, reason) => {
    expect(() => compileBashTemplate(template)).toThrow(expect.objectContaining({ code: 'bad-template' }));
    expect(() => compileBashTemplate(template)).toThrow(reason);
  });

  it('never puts anything but positional references where placeholders stood', () => {
    const { script } = compileBashTemplate(`a {x} "b {y}" 'c {z}' $'d {w}'`);
    expect(script).toBe(compiled(`a "\${1}" "b \${2}" 'c '"\${3}"'' $'d '"\${4}"$''`, 4));
  });
});

describe('analyseBashTemplate keeps its analyses', () => {
  // Every reload checks every tool's template again; the analysis is kept by the template and the placeholders the
  // schema makes integers, and only those: a change to either is a new analysis.
  const integer = { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string' } } };
  const text = { type: 'object', properties: { n: { type: 'string' } } };

  it('gives the same read-only analysis for the same template and integer placeholders', () => {
    const first = analyseBashTemplate('echo $(( {n} + 1 ))', integer);
    const again = analyseBashTemplate('echo $(( {n} + 1 ))', {
      type: 'object',
      properties: { n: { type: 'integer', description: 'another schema, the same integers' } },
    });
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => (first.problems as unknown[]).push('x')).toThrow(TypeError);
    expect(first.problems).toEqual([]);
    expect([...first.integers]).toEqual(['n']);
  });

  it('analyses again when the schema stops making a placeholder an integer', () => {
    const asInteger = analyseBashTemplate('echo $(( {n} * 2 ))', integer);
    const asText = analyseBashTemplate('echo $(( {n} * 2 ))', text);
    expect(asInteger.problems).toEqual([]);
    expect(asText.problems.length).toBeGreaterThan(0);
    // And back: the integer analysis is the kept one, not the last one made.
    expect(analyseBashTemplate('echo $(( {n} * 2 ))', integer)).toBe(asInteger);
    expect(analyseBashTemplate('echo $(( {n} * 2 ))')).toEqual(asText);
  });

  it('tells integer placeholders apart from a property whose name joins theirs', () => {
    const template = 'echo $(( {a} + {b} ))';
    const joined = {
      type: 'object',
      properties: { 'a\u0001b': { type: 'integer' }, a: { type: 'string' }, b: {} },
    };
    const both = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } };
    expect(analyseBashTemplate(template, both).problems).toEqual([]);
    expect(analyseBashTemplate(template, joined).problems.length).toBeGreaterThan(0);
  });

  it('never keeps a template that throws', () => {
    expect(() => analyseBashTemplate('echo {x')).toThrow(/bash:echo \{x/);
    expect(() => analyseBashTemplate('echo {x')).toThrow(/bash:echo \{x/);
  });
});
