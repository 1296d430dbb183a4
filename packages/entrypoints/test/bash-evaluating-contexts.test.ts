// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash scripts, not JS templates
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

let dir: string;
let marker: string;

beforeAll(async () => {
  dir = await tempDir();
  marker = join(dir, 'PWNED');
});

/** Values that run `touch marker` wherever bash evaluates a word as arithmetic or re-parses an array assignment. */
const payloads = () => [`a[$(touch ${marker})]`, `x[$(touch ${marker})]`, `([$(touch ${marker})]=1)`];

/** Value pairs where the first is read as an option or operator that makes bash evaluate the second as a name. */
const operatorPairs = () => [
  ['-v', `a[$(touch ${marker})]`],
  ['v', `a[$(touch ${marker})]`],
  [`-va[$(touch ${marker})]`, 'x'],
];

/**
 * Templates whose placeholder sits where bash evaluates even a quoted value as code, with the script an
 * earlier compiler produced for them: running that script shows the context is real, so refusing it matters.
 */
const evaluating: Array<[template: string, earlierScript: string]> = [
  ['x=abc; echo "${{x:"{a}"}}"', 'x=abc; echo "${x:"${1}"}"'],
  ['a=(1 2); echo "${{a["{i}"]}}"', 'a=(1 2); echo "${a["${1}"]}"'],
  ['x=abc; echo "${{x:$(printf %s {a})}}"', 'x=abc; echo "${x:$(printf %s "${1}")}"'],
  ['[[ "{a}" -eq 1 ]]', '[[ "${1}" -eq 1 ]]'],
  ['[[ $(printf %s {a}) -eq 1 ]]', '[[ $(printf %s "${1}") -eq 1 ]]'],
  ['printf -v{a} %s x', 'printf -v"${1}" %s x'],
  ['a=(1 2); unset {a}', 'a=(1 2); unset "${1}"'],
  ['a[ {i} ]=2', 'a[ "${1}" ]=2'],
  ['a=(1); a[ x[1] {i} ]=2', 'a=(1); a[ x[1] "${1}" ]=2'],
  ['x=(1); declare -g x={a}', 'x=(1); declare -g x="${1}"'],
  ['declare -a x={a}', 'declare -a x="${1}"'],
  ['readonly -a x={a}', 'readonly -a x="${1}"'],
  // a plain assignment to a variable the template made an integer is arithmetic
  ['declare -i n; n={a}', 'declare -i n; n="${1}"'],
  ['f() {{ local -i n; n+={a}; }}; f', 'v=$1; f() { local -i n; n+="$v"; }; f'],
  ['declare -xi k=1 n; export n={a}', 'declare -xi k=1 n; export n="${1}"'],
  // and so are bash's own integer and prompt variables
  ['RANDOM={a}', 'RANDOM="${1}"'],
  ['OPTIND={a}', 'OPTIND="${1}"'],
  ['PS4={a}; set -x; true', 'PS4="${1}"; set -x; true'],
];

function runsPayload(script: string): boolean {
  for (const value of payloads()) {
    spawnSync('bash', ['-c', script, 'birdie', value], { cwd: dir, stdio: 'ignore' });
    if (existsSync(marker)) return true;
  }
  return false;
}

describe('bash: values that printf or test could read as an option or operator are refused', () => {
  it.each([
    ['a=(1); printf {a} x', 'a=(1); printf "${1}" x'],
    ['a=(1); test {a} {b}', 'a=(1); test "${1}" "${2}"'],
    ['a=(1); [ {a} {b} ]', 'a=(1); [ "${1}" "${2}" ]'],
    ['a=(1); [ -{a} {b} ]', 'a=(1); [ -"${1}" "${2}" ]'],
  ])('%j', async (template, earlierScript) => {
    await rm(marker, { force: true });
    let ran = false;
    for (const [a, b] of operatorPairs()) {
      spawnSync('bash', ['-c', earlierScript, 'birdie', a!, b!], { cwd: dir, stdio: 'ignore' });
      ran ||= existsSync(marker);
    }
    await rm(marker, { force: true });
    expect(ran, 'the position really lets a value act as an option').toBe(true);
    expect(() => resolveEntrypoint(`bash:${template}`, { skillDir: dir })).toThrow(
      expect.objectContaining({ code: 'bad-template' }),
    );
  });

  it.each([
    "printf '%s' {a} {b}",
    'printf -- {a} {b}',
    '[ {a} = {b} ] || printf %s {b}',
    '[ -n {a} -a -n {b} ] && printf %s {b}',
  ])('still accepts %j', async (template) => {
    await rm(marker, { force: true });
    const entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir });
    for (const [a, b] of operatorPairs()) await entrypoint.run({ a, b }, { cwd: dir }).catch(() => {});
    expect(existsSync(marker)).toBe(false);
  });
});

describe('bash: placeholders where bash evaluates a quoted value are refused', () => {
  it.each(evaluating)('%j', async (template, earlierScript) => {
    await rm(marker, { force: true });
    expect(runsPayload(earlierScript), 'the context really evaluates the value').toBe(true);
    await rm(marker, { force: true });
    expect(() => resolveEntrypoint(`bash:${template}`, { skillDir: dir })).toThrow(
      expect.objectContaining({ code: 'bad-template' }),
    );
  });

  it.each([
    'x=(1); y="{v}"; printf %s "$y"',
    'export TZ={v}; printenv TZ',
    '[[ "{v}" == b ]] || printf %s {v}',
    'x=abc; printf %s "${{x:-y}}" {v}',
  ])('still accepts %j and passes the value as data', async (template) => {
    await rm(marker, { force: true });
    const entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir });
    for (const v of payloads()) {
      const { output } = await entrypoint.run({ v }, { cwd: dir });
      expect(output.trim().endsWith(v)).toBe(true);
    }
    expect(existsSync(marker)).toBe(false);
  });
});

describe('bash: backslashes, case words and here-strings do not desynchronise the compiler from bash', () => {
  const value = 'one two *';
  it.each([
    // a line continuation joins the lines: the here-document body starts after the next real newline
    ['printf "[%s]" <<EOF \\\n{v}\nEOF', `[${value}]`],
    // `\ ` is part of a word, so the `#` after it starts no comment
    ['printf "[%s]" \\ #{v}', `[ #${value}]`],
    ['printf "[%s]" \\;#{v}', `[;#${value}]`],
    ['printf "[%s]" a\\\n#{v}', `[a#${value}]`],
    // after a continuation that follows a space, `#` does start a comment, as in bash
    ['printf "[%s]" a \\\n#{v}', '[a]'],
    // `case` as an argument is a plain word: the ')' after it still closes the command substitution
    ['printf "[%s]" "$(echo case) x {v} esac)"', `[case x ${value} esac)]`],
    ['for i in 1; do case $i in 1) printf "[%s]" {v};; esac; done', `[${value}]`],
    // a here-string is no here-document: the next line is a command again
    ['cat <<<true\nprintf "[%s]" {v}\ntrue', `true\n[${value}]`],
    ['cat <<< {v}', `${value}\n`],
  ])('%j', async (template, expected) => {
    const entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir });
    const { output } = await entrypoint.run({ v: value }, { cwd: dir });
    expect(output).toBe(expected);
  });
});

describe('bash: a value is the same wherever it is used', () => {
  it.each([
    ['f() {{ printf "[%s]" {v}; }}; f', '[one two *]'],
    ['f() {{ printf "[%s]" "{v}"; }}; f other', '[one two *]'],
    ['function g {{ printf "[%s]" {v}; }}; g x y', '[one two *]'],
    ['set -- a b; printf "[%s]" {v} "$1"', '[one two *][a]'],
    ['shift; printf "[%s]" {v} {w}', '[one two *][second]'],
  ])('%j', async (template, expected) => {
    const entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir });
    const { output } = await entrypoint.run({ v: 'one two *', w: 'second' }, { cwd: dir });
    expect(output).toBe(expected);
  });
});
