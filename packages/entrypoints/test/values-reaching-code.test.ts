import { describe, expect, it } from 'vitest';
import { inspectEntrypoint, resolveEntrypoint } from '../src/index.js';

// Exploratory report #2: a value reached a shell's script through `--`, a variable command name, a pipe or xargs,
// and loaded with no diagnostic. #10: a value `@/path` after `curl -d` made curl send that file.

function inspect(template: string) {
  const properties = Object.fromEntries(
    [...template.matchAll(/(?<!\{)\{(\w+)\}/g)].map((m) => [m[1]!, { type: 'string' }]),
  );
  return inspectEntrypoint(`bash:${template}`, { skillDir: '/tmp', schema: { type: 'object', properties } });
}

describe("a value as a shell's script after options or --", () => {
  it.each([
    'sh -c -- {x}',
    'bash -c -- {x}',
    'dash -c -- {x}',
    'sh -xc -- {x}',
    'sh -c -- "{x}"',
    'sh -c -x -- {x}',
    'bash -c -o pipefail {x}',
    'env sh -c -- {x}',
  ])('%s is refused like sh -c {x}', (template) => {
    const { problems } = inspect(template);
    expect(problems.map((p) => p.message).join('\n')).toMatch(/is the script of '\w+ -c'/);
  });

  it.each([
    ['find . -maxdepth 0 -exec sh -c -- {x} \\;', 'sh -c'],
    ['nice sh -c -o errexit {x}', 'sh -c'],
    ['timeout 5 bash -c -e -- {x}', 'bash -c'],
  ])('%s warns at the code option', (template, expected) => {
    const { problems, warnings } = inspect(template);
    expect(problems).toEqual([]);
    expect(warnings.map((w) => `${w.program} ${w.option}`)).toEqual([expected]);
  });

  it.each([
    'sh -c -- \'echo "$1"\' sh {x}',
    'sh -c -x \'echo "$1"\' sh {x}',
    'sh -c -- -- {x}', // `--` is the script, the value its $0
  ])('%s: the value is an argument of a literal script', (template) => {
    const { problems, warnings } = inspect(template);
    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

describe('programs the check cannot know', () => {
  it.each([
    ['$SHELL -c {x}', '$SHELL command'],
    ['"$BASH" -c {x}', '"$BASH" command'],
    ["printf '%s\\n' {x} | $SHELL", '$SHELL command'],
    ['printf \'%s\' {x} | "$SHELL" -s', '"$SHELL" command'],
    ['echo {x} | $BASH', '$BASH command'],
    ['$PYTHON tool.py {x}', '$PYTHON command'],
    ['xargs sh -c <<< {x}', 'xargs input'],
    ['xargs bash -c <<< {x}', 'xargs input'],
    ['xargs env -S <<< {x}', 'xargs input'],
    ["printf '%s' {x} | xargs sh -c", 'xargs input'],
    ["printf '%s' {x} | xargs perl", 'xargs input'],
    ["printf '%s\\n' {x} | parallel", 'parallel input'],
  ])('%s warns (%s) and asks', (template, expected) => {
    const { problems, warnings } = inspect(template);
    expect(problems).toEqual([]);
    expect(warnings.map((w) => `${w.program} ${w.option}`)).toContain(expected);
    expect(warnings[0]!.message).toContain('approval: never');
  });

  it.each([
    '"$EDITOR" --version; echo {x}',
    "printf '%s\\0' {x} | xargs -0 wc -l",
    "printf '%s\\0' {x} | xargs -0 -I{{}} sh -c 'echo \"$1\"' _ {{}}",
    'xargs wc -l < list.txt; echo {x}',
  ])('%s: no warning', (template) => {
    const { problems, warnings } = inspect(template);
    expect(problems).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('a raw-looking template through $SHELL runs only after approval is asked (runsCode is set)', () => {
    const resolved = resolveEntrypoint('bash:$SHELL -c {x}', {
      skillDir: '/tmp',
      schema: { type: 'object', properties: { x: { type: 'string' } } },
    });
    expect(resolved.runsCode?.length).toBe(1);
  });
});

describe('values curl reads as a file to send', () => {
  const run = async (template: string, x: string) => {
    const resolved = resolveEntrypoint(`bash:${template}`, {
      skillDir: '/tmp',
      schema: { type: 'object', properties: { x: { type: 'string' } } },
    });
    return resolved.run({ x }).then(
      () => 'ran',
      (error: { code: string; message: string }) => (error.code === 'bad-argument' ? error.message : 'ran'),
    );
  };
  // port 9 (discard) is closed here: a value that is not refused makes curl fail to connect, which counts as ran
  const url = 'http://127.0.0.1:9/';
  it.each([
    [`curl -s -d {x} ${url}`, '@/etc/passwd'],
    [`curl -sd{x} ${url}`, '@/etc/passwd'],
    [`curl --data={x} ${url}`, '@/etc/passwd'],
    [`curl --data-binary {x} ${url}`, '@/etc/passwd'],
    [`curl -H {x} ${url}`, '@/etc/passwd'],
    [`curl -F {x} ${url}`, 'f=@/etc/passwd'],
    [`curl -F {x} ${url}`, 'f=</etc/passwd'],
    [`curl -F note={x} ${url}`, '</etc/passwd'],
    [`curl --data-urlencode {x} ${url}`, 'n@/etc/passwd'],
    [`curl -b {x} ${url}`, '/etc/passwd'],
    [`n={x}; curl -d "$n" ${url}`, '@/etc/passwd'],
  ])('%s refuses %s', async (template, value) => {
    expect(await run(template, value)).toMatch(/curl would read it as a file to send.*nothing was run/);
  });

  it.each([
    [`curl -s -d {x} ${url}`, 'hello @team'],
    [`curl -s -d note={x} ${url}`, '@/etc/passwd'],
    [`curl -s --data-raw {x} ${url}`, '@/etc/passwd'],
    [`curl -s --form-string note={x} ${url}`, '@/etc/passwd'],
    [`curl -s -F note={x} ${url}`, 'n=<x'],
    [`curl -s -b {x} ${url}`, 'session=1'],
    [`curl -s -- {x}`, '@x'],
  ])('%s sends %s', async (template, value) => {
    expect(await run(template, value)).toBe('ran');
  });
});
