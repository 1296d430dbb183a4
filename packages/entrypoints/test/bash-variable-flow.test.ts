// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash scripts, not JS templates
import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Entrypoint, isEntrypointError, resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';
import { evaluatedPayloads, INTEGER_FLOW_TEMPLATES, VARIABLE_FLOW_TEMPLATES } from './hostile-strings.js';

let dir: string;
let marker: string;

beforeAll(async () => {
  dir = await tempDir();
  marker = join(dir, 'PWNED');
  await writeFile(join(dir, 'lines.txt'), 'line 1\nline 2\nline 3\n');
});

const untyped = { type: 'object', properties: { n: { type: 'string' }, file: { type: 'string' } } };
const integer = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: -5, maximum: 100 }, file: { type: 'string' } },
};

/** Runs every payload through the entrypoint; true when one of them created the marker. */
async function runsPayload(entrypoint: Entrypoint): Promise<boolean> {
  for (const n of evaluatedPayloads(marker)) {
    await entrypoint.run({ n, file: 'lines.txt' }, { cwd: dir, timeoutMs: 5_000 }).catch(() => {});
    if (existsSync(marker)) return true;
  }
  return false;
}

describe('bash: a value that reaches a shell variable is still the value (issue 12, defect 2)', () => {
  it.each(VARIABLE_FLOW_TEMPLATES)('refuses %j at resolve time', async (template) => {
    await rm(marker, { force: true });
    let entrypoint: Entrypoint;
    try {
      entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir, schema: untyped });
    } catch (error) {
      expect(isEntrypointError(error, 'bad-template'), String(error)).toBe(true);
      return;
    }
    const ran = await runsPayload(entrypoint);
    await rm(marker, { force: true });
    expect.fail(`resolved${ran ? ', and a value ran a command' : ''}`);
  });

  it.each(INTEGER_FLOW_TEMPLATES)(
    'accepts %j when the schema says integer, and checks the value when it runs',
    async (template, outputForOne) => {
      await rm(marker, { force: true });
      const entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir, schema: integer });
      expect((await entrypoint.run({ n: 1, file: 'lines.txt' }, { cwd: dir })).output).toBe(outputForOne);
      expect((await entrypoint.run({ n: '1', file: 'lines.txt' }, { cwd: dir })).output).toBe(outputForOne);
      for (const n of [
        ...evaluatedPayloads(marker),
        '1.5',
        1.5,
        '01',
        '+1',
        ' 1',
        '1 ',
        '0x1',
        '',
        101,
        -6,
      ]) {
        await expect(
          entrypoint.run({ n, file: 'lines.txt' }, { cwd: dir }),
          JSON.stringify(n),
        ).rejects.toMatchObject({ code: 'bad-argument' });
      }
      expect(existsSync(marker)).toBe(false);
    },
  );

  it('still refuses an integer-typed value where bash would run it as code or a command', () => {
    for (const template of [
      'x={n}; eval "echo $x"',
      'x={n}; $x',
      'x={n}; source "$x"',
      'x={n}; echo "${{!x}}"',
    ]) {
      expect(
        () => resolveEntrypoint(`bash:${template}`, { skillDir: dir, schema: integer }),
        template,
      ).toThrow(expect.objectContaining({ code: 'bad-template' }));
    }
  });

  it.each([
    ['x={n}; printf "[%s]" "$x"', '[one two *]'],
    ['x={n}; y="$x"; printf "[%s]" "$y" "${{#y}}"', '[one two *][9]'],
    ['x={n}; [[ $x == one* ]] && printf yes', 'yes'],
    ['x={n}; case $x in one*) printf yes;; esac', 'yes'],
    ['x={n}; cat <<< $x', 'one two *\n'],
    ['x={n}; cat <<EOF\n$x\nEOF', 'one two *\n'],
    ['n=3; echo $(( n + 1 )); printf "[%s]" {n}', '4\n[one two *]'],
    ['f() {{ printf "[%s]" "$1"; }}; f {n}', '[one two *]'],
    ['x={n}; printf "[%s]" "${{x:-none}}" "${{x//o/0}}"', '[one two *][0ne tw0 *]'],
  ])('still runs %j with the value as data', async (template, expected) => {
    const entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir, schema: untyped });
    expect((await entrypoint.run({ n: 'one two *' }, { cwd: dir })).output).toBe(expected);
  });
});
