import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkEntrypoint, inspectEntrypoint, resolveEntrypoint } from '../src/index.js';
import { budgetFor, tempDir } from './helpers.js';

let dir: string;

beforeAll(async () => {
  dir = await tempDir();
});

/**
 * Templates that load without an error and whose command runs a value as code, with a value that proves it (it
 * creates the file PWNED in the working folder), and the program and option the warning must name.
 */
const EXECUTING: readonly { template: string; value: string; program: string; option: string }[] = [
  {
    template: "find . -maxdepth 0 -exec sh -c 'echo {n}' \\;",
    value: '$(touch PWNED)',
    program: 'sh',
    option: '-c',
  },
  {
    template: "printf '%s\\n' {n} | xargs -I{{}} sh -c 'echo {{}}'",
    value: '$(touch PWNED)',
    program: 'sh',
    option: '-c',
  },
  { template: "echo {n} | awk '{{ system($0) }}'", value: 'touch PWNED', program: 'awk', option: 'operand' },
  {
    template: 'awk "BEGIN {{ print \\"{n}\\" }}"',
    value: '" ; system("touch PWNED"); print "',
    program: 'awk',
    option: 'operand',
  },
  { template: 'echo x | sed "s/x/{n}/"', value: '/;e touch PWNED\n#', program: 'sed', option: 'operand' },
  { template: 'perl -e \'print "{n}"\'', value: '@{[system q(touch PWNED)]}', program: 'perl', option: '-e' },
  { template: "perl -e 'eval $ARGV[0]' {n}", value: 'system "touch PWNED"', program: 'perl', option: '-e' },
  {
    template: 'python3 -c \'print("{n}")\'',
    value: '"+__import__("os").system("touch PWNED")+"',
    program: 'python3',
    option: '-c',
  },
  {
    template: 'node -e \'console.log("{n}")\'',
    value: '"+require("fs").writeFileSync("PWNED","")+"',
    program: 'node',
    option: '-e',
  },
  {
    template: "printf '%s\\n' {n} > run.sh; sh run.sh",
    value: 'touch PWNED',
    program: 'sh',
    option: 'run.sh',
  },
  {
    template: 'echo {n} > run.py && python3 run.py',
    value: 'import os; os.system("touch PWNED")',
    program: 'python3',
    option: 'run.py',
  },
];

const schema = { type: 'object', properties: { n: { type: 'string' } } } as const;

describe('commands that run their arguments as code', { timeout: budgetFor(EXECUTING.length * 2) }, () => {
  it.each(EXECUTING)(
    '$template: loads, runs the value, and is reported',
    async ({ template, value, program, option }) => {
      const entrypoint = `bash:${template}`;
      expect(checkEntrypoint(entrypoint, { skillDir: dir, schema })).toEqual([]);
      const work = join(dir, String(EXECUTING.findIndex((e) => e.template === template)));
      await mkdir(work, { recursive: true });
      const resolved = resolveEntrypoint(entrypoint, { skillDir: dir, schema });
      await resolved.run({ n: value }, { cwd: work }).catch(() => undefined);
      // the control: the value did run
      expect(existsSync(join(work, 'PWNED')), 'the value ran').toBe(true);
      // so the template carries a warning naming the program and the option, and the tool asks before it runs
      const { problems, warnings } = inspectEntrypoint(entrypoint, { skillDir: dir, schema });
      expect(problems).toEqual([]);
      expect(warnings).toEqual([
        expect.objectContaining({ code: 'code-taking-command', program, option, offset: expect.any(Number) }),
      ]);
      expect(warnings[0]!.message).toContain('approval: never');
      expect(resolved.runsCode?.map((w) => [w.program, w.option])).toEqual([[program, option]]);
    },
  );
});

/** The warnings of a template, as `program option`. */
function warned(template: string): string[] {
  const properties = Object.fromEntries(
    [...template.matchAll(/(?<!\{)\{(\w+)\}/g)].map((m) => [m[1]!, { type: 'string' }]),
  );
  const { problems, warnings } = inspectEntrypoint(`bash:${template}`, {
    skillDir: '/tmp',
    schema: { type: 'object', properties },
  });
  expect(problems).toEqual([]);
  return warnings.map((w) => `${w.program} ${w.option}`);
}

describe('the code-taking warning', () => {
  it.each([
    ['git -c {x} log', 'git -c'],
    ['git log --format=%H --output={x}', undefined],
    ['ssh host ls -- {p}', 'ssh operand'],
    ['tar --to-command={c} -xf a.tar', 'tar --to-command'],
    ["perl -ne 'print if /x/' -- {f}", 'perl -e'],
    ['python3 -c "import sys; print(sys.argv[1])" {x}', 'python3 -c'],
    ["ruby -e 'puts ARGV[0]' {x}", 'ruby -e'],
    ['awk -f {prog} data.txt', 'awk -f'],
    ["sed -e 's/a/b/e' -- {f}", 'sed -e'],
    ['find -- {dir} -exec {{}} \\;', 'find command'],
    ["printf '%s\\0' {x} | xargs -0 -n1 perl -e 'print @ARGV'", 'perl -e'],
    ["timeout 5 node -e 'console.log(1)' {x}", 'node -e'],
    ['echo {x} | python3', 'python3 input'],
    ['python3 - <<EOF\nprint("{x}")\nEOF', 'python3 input'],
    ['echo {x} | tee run.sh >/dev/null; bash run.sh', 'bash run.sh'],
    ['curl -fsSo get.sh -- {url} && sh get.sh', 'sh get.sh'],
    ["curl -sw '%output{{get.sh}}%{{url}}' -o /dev/null -- {url} && sh get.sh", 'sh get.sh'],
    ['echo {x} > t.sh; chmod +x t.sh; ./t.sh', './t.sh command'],
    ['echo {x} > in.sql; sqlite3 db < in.sql', 'sqlite3 < in.sql'],
    ['timeout 5 {x}', 'timeout command'],
    ['echo x | split --filter={x}', 'split --filter'],
    ['flock . -c {x}', 'flock -c'],
    ["printf 'all:\\n\\t%s\\n' {x} > Makefile; make -s", 'make Makefile'],
  ])('%s: %s', (template, expected) => {
    expect(warned(template)).toEqual(expected === undefined ? [] : [expected]);
  });

  it.each([
    "awk '{{ print $1 }}' -- {f}",
    "awk -F: '/a|b/ {{ n++ }} END {{ print n }}' -- {f}",
    "sed -n 's/a/b/p' -- {f}",
    "sed -e '/x/d' -e 's|a|b|g' -- {f}",
    "find -- {dir} -name '*.ts' -print",
    "find -- {dir} -name '*.ts' -exec wc -l {{}} +",
    'git log --oneline -- {path}',
    'sh -c \'echo "$1"\' _ {x}',
    "printf '%s\\0' {x} | xargs -0 -I{{}} sh -c 'echo \"$1\"' _ {{}}",
    'python3 script.py {x}',
    "printf '%s' {x} > out.txt; cat out.txt",
    "perl -e 'print 1'",
    'echo {x} | grep -c a',
    'command -v -- {x} || echo none',
  ])('%s: no warning', (template) => {
    expect(warned(template)).toEqual([]);
  });
});

describe('the README', () => {
  it('lists every program of the code-taking table', async () => {
    const { readFile } = await import('node:fs/promises');
    const { CODE_TAKING_PROGRAMS } = await import('../src/index.js');
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Programs that run their arguments as code'));
    for (const program of CODE_TAKING_PROGRAMS)
      for (const name of program.names) expect(section, name).toContain(`\`${name}\``);
  });
});
