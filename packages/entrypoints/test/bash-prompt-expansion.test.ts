// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash scripts, not JS templates
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkEntrypoint, resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

let dir: string;
let marker: string;

beforeAll(async () => {
  dir = await tempDir();
  marker = join(dir, 'F');
});

const schema = { type: 'object', properties: { v: { type: 'string' }, w: { type: 'string' } } };
/** Values that run `touch F` where bash expands a prompt string (`$( … )` and backticks run there). */
const payloads = () => [`a$(touch ${marker})`, `\`touch ${marker}\``, `a[$(touch ${marker})]`];

/** Whether the script (what the compiler made of a template before the fix, `$1` the value) runs a payload. */
function runsPayload(script: string): boolean {
  for (const value of payloads()) {
    spawnSync('bash', ['-c', script, 'birdie', value], { cwd: dir, stdio: 'ignore' });
    if (existsSync(marker)) return true;
  }
  return false;
}

/** Resolves the template; when it resolves, runs every payload through it, so the failure says what happened. */
async function refusedAtLoad(template: string): Promise<void> {
  await rm(marker, { force: true });
  let entrypoint: ReturnType<typeof resolveEntrypoint>;
  try {
    entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir, schema });
  } catch (error) {
    expect(error).toMatchObject({ code: 'bad-template' });
    return;
  }
  for (const v of payloads()) await entrypoint.run({ v, w: 'x' }, { cwd: dir }).catch(() => {});
  const ran = existsSync(marker);
  await rm(marker, { force: true });
  expect.fail(`resolved${ran ? ', and running it with a value created F' : ''}`);
}

/** The offset (into the whole entrypoint string) of the `${` of the n-th (0-based) parameter expansion. */
function expansionOffset(entrypoint: string, nth = 0): number {
  let index = -1;
  for (let k = 0; k <= nth; k++) index = entrypoint.indexOf('${{', index + 1);
  return index;
}

/**
 * The forms of issue 28, defect 1, with the script the compiler produced for each before the fix: `${!y@P}` expands
 * the value of the variable y names as a prompt, and a prompt string runs its `$( … )`. Quoted, each one passed.
 */
const REPORTED: Array<[template: string, earlierScript: string]> = [
  ['x="{v}"; y=x; echo "${{!y@P}}"', 'x="${1}"; y=x; echo "${!y@P}"'],
  ['x="{v}"; y=x; z="${{!y@P}}"; echo "$z"', 'x="${1}"; y=x; z="${!y@P}"; echo "$z"'],
  ['x="{v}"; y=x; printf "%s" "${{!y@P}}"', 'x="${1}"; y=x; printf "%s" "${!y@P}"'],
  ['x="{v}"; y=x; case "${{!y@P}}" in *) echo;; esac', 'x="${1}"; y=x; case "${!y@P}" in *) echo;; esac'],
  ['x="{v}"; y=x; : "${{!y@P}}"', 'x="${1}"; y=x; : "${!y@P}"'],
  ['x="{v}"; y=x; ls "${{!y@P}}"', 'x="${1}"; y=x; ls "${!y@P}"'],
  ['x="{v}"; arr=(x); echo "${{!arr[0]@P}}"', 'x="${1}"; arr=(x); echo "${!arr[0]@P}"'],
  ['x="{v}"; for y in x; do echo "${{!y@P}}"; done', 'x="${1}"; for y in x; do echo "${!y@P}"; done'],
  ['x="{v}"; y=x; echo "${{!y[@]@P}}"', 'x="${1}"; y=x; echo "${!y[@]@P}"'],
  ['x="{v}"; arr=(x); echo "${{!arr[@]@P}}"', 'x="${1}"; arr=(x); echo "${!arr[@]@P}"'],
  // the unquoted form was already refused (as an unquoted expansion)
  ['x="{v}"; y=x; echo ${{!y@P}}', 'x="${1}"; y=x; echo ${!y@P}'],
  // siblings: other places the same expansion stands
  ['x="{v}"; y=x; cat <<EOF\n${{!y@P}}\nEOF', 'x="${1}"; y=x; cat <<EOF\n${!y@P}\nEOF'],
  ['x="{v}"; y=x; [[ "${{!y@P}}" == a ]]', 'x="${1}"; y=x; [[ "${!y@P}" == a ]]'],
  ['f() {{ echo "${{!1@P}}"; }}; x="{v}"; f x', 'f() { echo "${!1@P}"; }; x="${1}"; f x'],
  ['x="{v}"; y=x; echo "${{z:-${{!y@P}}}}"', 'x="${1}"; y=x; echo "${z:-${!y@P}}"'],
  ['x="{v}"; y=x; eval \'echo "${{!y@P}}"\'', 'x="${1}"; y=x; eval \'echo "${!y@P}"\''],
  // a nameref is an indirection too
  ['declare -n ref=x; x="{v}"; echo "${{ref@P}}"', 'declare -n ref=x; x="${1}"; echo "${ref@P}"'],
  ['x="{v}"; declare -n ref=x; printf %s "${{ref@P}}"', 'x="${1}"; declare -n ref=x; printf %s "${ref@P}"'],
  // direct, and on arrays
  ['x="{v}"; echo "${{x@P}}"', 'x="${1}"; echo "${x@P}"'],
  ['a=("{v}"); echo "${{a[@]@P}}"', 'a=("${1}"); echo "${a[@]@P}"'],
  ['a=("{v}"); echo "${{a[0]@P}}"', 'a=("${1}"); echo "${a[0]@P}"'],
  ['f() {{ echo "${{1@P}}"; }}; f "{v}"', 'f() { echo "${1@P}"; }; f "${1}"'],
  ['set -- "{v}"; echo "${{@@P}}"', 'set -- "${1}"; echo "${@@P}"'],
  // `${!arr[@]…}` with an operator is an indirection through each element, not the list of keys
  ['arr=("{v}"); echo "${{!arr[@]/a/b}}"', 'arr=("${1}"); echo "${!arr[@]/a/b}"'],
  ['arr=("{v}"); echo "${{!arr[*]:-z}}"', 'arr=("${1}"); echo "${!arr[*]:-z}"'],
];

describe('bash: ${!name@P} and other prompt expansions a value reaches are refused at load (issue 28, defect 1)', () => {
  it.each(REPORTED)('%j', async (template, earlierScript) => {
    await rm(marker, { force: true });
    expect(runsPayload(earlierScript), 'bash really runs the value there').toBe(true);
    await rm(marker, { force: true });
    await refusedAtLoad(template);
    const problems = checkEntrypoint(`bash:${template}`, { skillDir: dir, schema });
    expect(problems.length, 'checkEntrypoint finds it').toBeGreaterThan(0);
    expect(problems[0]).toMatchObject({ code: 'bad-template' });
  });

  it('positions the diagnostic at the expansion', () => {
    const entrypoint = 'bash:x="{v}"; y=x; echo "${{!y@P}}"';
    expect(checkEntrypoint(entrypoint, { skillDir: dir, schema })).toEqual([
      expect.objectContaining({
        code: 'bad-template',
        offset: expansionOffset(entrypoint),
        message: expect.stringContaining('prompt'),
      }),
    ]);
  });

  it.each([
    // @E expands backslash escapes: no command runs (bash 5.2), but the value becomes bytes the template never wrote
    'x="{v}"; y=x; echo "${{!y@E}}"',
    'x="{v}"; echo "${{x@E}}"',
    'x="{v}"; arr=(x); printf %s "${{!arr[0]@E}}"',
    'declare -n ref=x; x="{v}"; echo "${{ref@E}}"',
    // an indirection the scanner cannot place: fail closed whenever the template has a value
    'y=$(cat name.txt); echo "${{!y@P}}" {v}',
    'read -r y < name.txt; echo "${{!y@P}}" {v}',
    'y=HOME; printf %s "${{!y@P}}" {v}',
  ])('refuses %j', async (template) => {
    expect(checkEntrypoint(`bash:${template}`, { skillDir: dir, schema })).toContainEqual(
      expect.objectContaining({ code: 'bad-template' }),
    );
    await refusedAtLoad(template);
  });

  it.each([
    // quoting and assignment forms print the value as data
    ['x="{v}"; y=x; printf "[%s]" "${{!y@Q}}"', (v: string) => `[${quoted(v)}]`],
    ['x="{v}"; y=x; printf "[%s]" "${{!y@A}}"', (v: string) => `[x=${quoted(v)}]`],
    ['x="{v}"; printf "[%s]" "${{x@Q}}" "${{x@U}}"', (v: string) => `[${quoted(v)}][${v.toUpperCase()}]`],
    // lists of names and of keys name no value
    ['x_1="{v}"; x_2=b; printf "[%s]" "${{!x_*}}" "${{!x_@}}"', () => '[x_1 x_2][x_1][x_2]'],
    ['a=("{v}" b); printf "[%s]" "${{!a[@]}}"', () => '[0][1]'],
    // a prompt string the template wrote, with the value elsewhere
    ['p="birdie> "; printf "[%s]" "${{p@P}}" "{v}"', (v: string) => `[birdie> ][${v}]`],
  ])('still runs %j with the value as data', async (template, expected) => {
    await rm(marker, { force: true });
    const entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir, schema });
    for (const v of payloads()) {
      const { output } = await entrypoint.run({ v }, { cwd: dir });
      expect(output).toBe(expected(v));
    }
    expect(existsSync(marker)).toBe(false);
  });
});

/** bash's `@Q` quoting of a value without single quotes or control characters. */
function quoted(value: string): string {
  return `'${value}'`;
}
