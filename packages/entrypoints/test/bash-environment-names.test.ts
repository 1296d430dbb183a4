// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are bash scripts, not JS templates
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkEntrypoint, inspectEntrypoint, resolveEntrypoint } from '../src/index.js';
import { tempDir } from './helpers.js';

let dir: string;
let marker: string;
/** A folder with programs named `ls` and `git` that create the marker: what a model could write and then name. */
let bin: string;
/** A script that creates the marker, for variables that name a program to run. */
let script: string;
/** A git repository with a changed file, so that `git diff` has something to show. */
let repo: string;

beforeAll(async () => {
  dir = await tempDir();
  marker = join(dir, 'F');
  bin = join(dir, 'bin');
  await mkdir(bin);
  script = join(dir, 'planted.sh');
  const body = `#!/bin/sh\n/usr/bin/touch '${marker}'\n`;
  for (const file of [join(bin, 'ls'), join(bin, 'git'), script]) {
    await writeFile(file, body);
    await chmod(file, 0o755);
  }
  await writeFile(join(dir, 'planted.env'), `/usr/bin/touch '${marker}'\n`);
  repo = join(dir, 'repo');
  await mkdir(repo);
  const git = (...args: string[]) =>
    spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  await writeFile(join(repo, 'a.txt'), 'one\n');
  git('add', 'a.txt');
  git('commit', '-qm', 'one');
  await writeFile(join(repo, 'a.txt'), 'two\n');
});

const schema = { type: 'object', properties: { v: { type: 'string' }, w: { type: 'string' } } };

/** The values a hostile model would send: the planted folder, the planted script, the planted startup file. */
const values = () => [bin, script, join(dir, 'planted.env')];

/** Whether the script (what the compiler made of a template before the fix, `$1` the value) runs the planted code. */
function runsPlanted(earlierScript: string): boolean {
  for (const value of values()) {
    spawnSync('bash', ['-c', earlierScript, 'birdie', value], { cwd: repo, stdio: 'ignore' });
    if (existsSync(marker)) return true;
  }
  return false;
}

/** Resolves the template; when it resolves, runs it with every value, so the failure says whether one ran. */
async function refusedAtLoad(template: string): Promise<void> {
  await rm(marker, { force: true });
  let entrypoint: ReturnType<typeof resolveEntrypoint>;
  try {
    entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir, schema });
  } catch (error) {
    expect(error).toMatchObject({ code: 'bad-template' });
    return;
  }
  for (const v of values()) await entrypoint.run({ v, w: 'x' }, { cwd: repo }).catch(() => {});
  const ran = existsSync(marker);
  await rm(marker, { force: true });
  expect.fail(`resolved${ran ? ', and running it with a value created F' : ''}`);
}

/** The offset, in the whole entrypoint string, of the word that assigns `name`. */
function assignmentOffset(entrypoint: string, name: string): number {
  return new RegExp(`(?<![\\w"])"?${name}(\\+?=|\\s|$)`).exec(entrypoint)!.index;
}

/**
 * The forms of issue 28, defect 2, and their siblings, each with the script the compiler produced for it before the
 * fix: the value names the folder `ls` is looked up in, or a program that another program starts.
 */
const REPORTED: Array<[template: string, earlierScript: string, name: string, at?: string]> = [
  ['PATH={v} ls', 'PATH="${1}" ls', 'PATH'],
  ['env PATH={v} ls', 'env PATH="${1}" ls', 'PATH'],
  ['export PATH="{v}:$PATH"; ls', 'export PATH="${1}:$PATH"; ls', 'PATH'],
  ['x={v}; PATH=$x ls', 'x="${1}"; PATH=$x ls', 'PATH'],
  ['GIT_EXTERNAL_DIFF={v} git diff', 'GIT_EXTERNAL_DIFF="${1}" git diff', 'GIT_EXTERNAL_DIFF'],
  // every other way a value reaches the environment or a name bash acts on
  ['env "PATH={v}" ls', 'env "PATH=${1}" ls', 'PATH'],
  ['export "PATH={v}"; ls', 'export "PATH=${1}"; ls', 'PATH'],
  ['declare -x PATH={v}; ls', 'declare -x PATH="${1}"; ls', 'PATH'],
  ['typeset -x PATH={v}; ls', 'typeset -x PATH="${1}"; ls', 'PATH'],
  ['f() {{ local -x PATH={v}; ls; }}; f', 'v=$1; f() { local -x PATH="$v"; ls; }; f', 'PATH'],
  ['PATH={v}; ls', 'PATH="${1}"; ls', 'PATH'],
  ['PATH+=:{v}; PATH={v}:$PATH; ls', 'PATH+=:"${1}"; PATH="${1}":$PATH; ls', 'PATH'],
  [
    'printf %s {v} > p.txt; read -r PATH < p.txt; ls',
    'printf %s "${1}" > p.txt; read -r PATH < p.txt; ls',
    'PATH',
  ],
  ['for PATH in {v}; do ls; done', 'for PATH in "${1}"; do ls; done', 'PATH'],
  ['x={v}; : "${{PATH:=$x}}"; unset PATH; PATH=$x ls', 'x="${1}"; unset PATH; PATH=$x ls', 'PATH'],
  // literal code is scanned like the template: the problem stands at the command that runs it
  ["x={v}; eval 'PATH=$x ls'", 'x="${1}"; eval \'PATH=$x ls\'', 'PATH', "'PATH"],
  ['x={v}; bash -c \'PATH=$1 ls\' _ "$x"', 'x="${1}"; bash -c \'PATH=$1 ls\' _ "$x"', 'PATH', "'PATH"],
  [
    'sudo -n true 2>/dev/null; GIT_EXTERNAL_DIFF={v} git diff',
    'GIT_EXTERNAL_DIFF="${1}" git diff',
    'GIT_EXTERNAL_DIFF',
  ],
  ['BASH_ENV={v} bash -c :', 'BASH_ENV="${1}" bash -c :', 'BASH_ENV'],
  ['x={v}; export BASH_ENV=$x; bash -c :', 'x="${1}"; export BASH_ENV=$x; bash -c :', 'BASH_ENV'],
  [
    'GIT_EDITOR={v} git commit -q --allow-empty',
    'GIT_EDITOR="${1}" git commit -q --allow-empty',
    'GIT_EDITOR',
  ],
  // a lower-case variable that a child sees: exported, a prefix assignment, or under `set -a`
  ['ed={v}; export ed; bash -c \'"$ed"\'', 'ed="${1}"; export ed; bash -c \'"$ed"\'', 'ed'],
  ['set -a; ed={v}; bash -c \'"$ed"\'', 'set -a; ed="${1}"; bash -c \'"$ed"\'', 'ed'],
  ['ed={v} bash -c \'"$ed"\'', 'ed="${1}" bash -c \'"$ed"\'', 'ed'],
];

describe('bash: a value that reaches an environment name bash or a child acts on is refused at load (issue 28, defect 2)', () => {
  it.each(REPORTED)('%j', async (template, earlierScript, name, at) => {
    await rm(marker, { force: true });
    expect(runsPlanted(earlierScript), 'bash or a child really runs what the value names').toBe(true);
    await rm(marker, { force: true });
    await refusedAtLoad(template);
    const entrypoint = `bash:${template}`;
    expect(checkEntrypoint(entrypoint, { skillDir: dir, schema })).toContainEqual(
      expect.objectContaining({
        code: 'bad-template',
        offset: at ? entrypoint.indexOf(at) : assignmentOffset(entrypoint, name),
        message: expect.stringContaining(`variable ${name}`),
      }),
    );
  });

  it.each([
    // names the issue lists, and names nothing allows
    'LD_PRELOAD={v} ls',
    'GIT_PAGER={v} git -p log',
    'PAGER={v} git -p log',
    'LD_LIBRARY_PATH={v} ls',
    'GIT_SSH_COMMAND={v} git fetch',
    'FOO_COMMAND={v} tool',
    'EDITOR={v} crontab -e',
    'VISUAL={v} crontab -e',
    'SHELL={v} script -q /dev/null',
    'PYTHONPATH={v} python3 -c pass',
    'PYTHONSTARTUP={v} python3',
    'NODE_OPTIONS={v} node -e 0',
    'PERL5OPT={v} perl -e 1',
    'PERL5LIB={v} perl -e 1',
    'CDPATH={v} cd lib',
    'IFS={v}; set -- $*',
    'HOME={v}; cd',
    'ENV={v} sh -i',
    'PS4={v}; set -x; :',
    'PROMPT_COMMAND={v}',
    'GLOBIGNORE={v}; echo *',
    'SHELLOPTS={v}',
    'BASHOPTS={v}',
    'FUNCNEST={v}',
    'HISTFILE={v}',
    'MAILPATH={v}',
    'TMOUT={v}',
    'BASH_XTRACEFD={v}',
    // the locale variables load data and message catalogs from a path the value may name
    'LANG={v} ls',
    'LANGUAGE={v} cat --help',
    'LC_ALL={v} ls',
    // an upper-case name may arrive exported (birdie passes BIRDIE_HOME …): a plain assignment changes it for children
    'BIRDIE_SESSION_DIR={v}; node tool.mjs',
    'N={v}; printf %s "$N"',
    // through a variable, `printf -v`, `mapfile`, a name read from input
    'x={v}; y=$x; LD_PRELOAD=$y ls',
    'printf -v PAGER %s {v}; git -p log',
    'printf %s {v} > p.txt; mapfile -t PAGER < p.txt; git -p log',
    'x=$(cat p.txt); PATH=$x ls; printf %s {v}',
    'f() {{ PATH=$1 ls; }}; f {v}',
    'ed={v}; declare -x ed; env',
    'ed={v}; typeset -gx ed; env',
    'set -o allexport; ed={v}; env',
    'sudo LD_PRELOAD={v} ls',
    // a prefix's option that takes a value does not hide the assignment after it
    'env -C /tmp PATH={v} ls',
    'env --chdir /tmp PATH={v} ls',
    'sudo -u root PATH={v} ls',
    // a nameref assigns the variable it names; `${!y:=…}` assigns one named at run time
    'declare -n r=PATH; printf %s {v} > f; read -r r < f; ls',
    'declare -n r; r=PATH; x={v}; r=$x; ls',
    'y=CDPATH; x={v}; : "${{!y:=$x}}"; cd lib',
  ])('refuses %j', async (template) => {
    expect(checkEntrypoint(`bash:${template}`, { skillDir: dir, schema })).toContainEqual(
      expect.objectContaining({
        code: 'bad-template',
        message: expect.stringContaining('reaches the variable'),
      }),
    );
    await refusedAtLoad(template);
  });

  it('LANGUAGE from a value loads a message catalog from the folder it names (why locale names are refused)', async () => {
    const catalog = join(dir, 'loc', 'LC_MESSAGES');
    await mkdir(catalog, { recursive: true });
    const po = join(dir, 'loc', 'x.po');
    await writeFile(
      po,
      'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Usage: %s [OPTION]... [FILE]...\\n"\nmsgstr "PLANTED %s %s\\n"\n',
    );
    const compiled = spawnSync('msgfmt', ['-o', join(catalog, 'coreutils.mo'), po]);
    expect(compiled.status, 'msgfmt (gettext) is installed').toBe(0);
    const run = spawnSync(
      'bash',
      ['-c', 'LANGUAGE="${1}" cat --help', 'birdie', `../../../..${join(dir, 'loc')}`],
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C.UTF-8' },
        encoding: 'utf8',
      },
    );
    expect(run.stdout).toContain('PLANTED');
    await refusedAtLoad('LANGUAGE={v} cat --help');
  });

  it.each([
    // data-only names take any value
    ['TZ={v} printenv TZ', (v: string) => `${v}\n`],
    ['export TZ={v}; printenv TZ', (v: string) => `${v}\n`],
    ['env COLUMNS={v} LINES={v} printenv COLUMNS', (v: string) => `${v}\n`],
    ['NO_COLOR={v} TERM={v} printenv NO_COLOR', (v: string) => `${v}\n`],
    // lower-case variables the template does not export are its own
    ['x={v}; printf %s "$x"', (v: string) => v],
    ['f() {{ local dir={v}; printf %s "$dir"; }}; f', (v: string) => v],
    ['printf %s {v} > f.txt; read -r line < f.txt; printf %s "$line"', (v: string) => v],
    // environment names the template sets itself, with the value elsewhere
    ['PATH=/usr/bin:/bin; export PATH="$PATH:/opt/tools"; printf %s {v}', (v: string) => v],
    ['LC_ALL=C printf %s {v}', (v: string) => v],
    ['export GIT_PAGER=cat; printf %s {v}', (v: string) => v],
  ])('still runs %j with the value as data', async (template, expected) => {
    await rm(marker, { force: true });
    const entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir, schema });
    for (const v of values()) {
      const { output } = await entrypoint.run({ v }, { cwd: dir });
      expect(output).toBe(expected(v));
    }
    expect(existsSync(marker)).toBe(false);
  });
});

describe('bash: what a prefix command runs is found behind its options (issue 28, siblings of defect 2)', () => {
  it.each([
    ['env -C /tmp bash -c {v}', 'env -C /tmp bash -c "${1}"'],
    ['env --chdir /tmp bash -c {v}', 'env --chdir /tmp bash -c "${1}"'],
    ['env -u X bash -c {v}', 'env -u X bash -c "${1}"'],
    ['env -C /tmp eval {v}', 'true'],
    // a quoted word is no assignment to bash: the value is part of the command name
    ['"PATH={v}" ls', 'true'],
  ])('refuses %j', async (template, earlierScript) => {
    if (earlierScript !== 'true') {
      await rm(marker, { force: true });
      spawnSync('bash', ['-c', earlierScript, 'birdie', `/usr/bin/touch '${marker}'`], { cwd: dir });
      expect(existsSync(marker), 'the value runs as code').toBe(true);
    }
    await refusedAtLoad(template);
  });
});

describe('bash: here-document text is data for the command that reads it, not commands (stop 69 report)', () => {
  // The body is what `cat` prints: a line that looks like an assignment or a command assigns and runs nothing.
  it.each([
    'cat <<EOF\ngreeting={v} world\nEOF',
    'cat <<EOF\na={v} b\nEOF\n',
    'cat <<EOF\nPATH={v} ls\nEOF',
    'cat <<EOF\nexport LD_PRELOAD={v}\nEOF',
    'cat <<-EOF\n\tGIT_PAGER={v} git -p log\n\tEOF\necho done',
    'cat <<EOF > note.txt\nx=${{HOME}} y={v}\nEOF\ncat note.txt',
    'cat <<EOF\nname={v}\nEOF\necho {w}',
  ])('resolves %j and prints the value as text', async (template) => {
    expect(checkEntrypoint(`bash:${template}`, { skillDir: dir, schema })).toEqual([]);
    const entrypoint = resolveEntrypoint(`bash:${template}`, { skillDir: dir, schema });
    const value = 'planted; $(touch F) `touch F`';
    const result = await entrypoint.run({ v: value, w: 'x' }, { cwd: repo });
    expect(JSON.stringify(result)).toContain('planted; $(touch F) `touch F`');
    expect(existsSync(join(repo, 'F'))).toBe(false);
  });

  // What a shell reads as a script is still checked: the body is code there. A body is data only where the line that
  // declares it is one command that prints what it reads (cat, grep …) and nothing else: every other reader (a shell
  // named any way, `bash /dev/stdin`, a pipe continued on the next line, a file written and run later, a variable
  // read from it) keeps the body checked as the template's own commands (the review of 72e4db45 ran two of these).
  it.each([
    'bash <<EOF\ngreeting={v} world\nEOF',
    'cat <<EOF | bash\nPATH={v} ls\nEOF',
    'sh <<EOF\necho {v}\nEOF',
    'bash /dev/stdin {v} <<\'EOF\'\neval "$1"\nEOF',
    '"$SHELL" <<EOF\neval {v}\nEOF',
    'cat <<EOF | "$BASH"\nPATH={v} ls\nEOF',
    'cat <<EOF | timeout 5 bash\nPATH={v} ls\nEOF',
    'bash -s x <<EOF\nexport LD_PRELOAD={v}\nEOF',
    'cat <<EOF > run.sh\nPATH={v} ls\nEOF\nbash run.sh',
    'tee run.sh <<EOF\nPATH={v} ls\nEOF\nbash run.sh',
    'read -r x <<EOF\nPATH={v} ls\nEOF\neval "$x"',
    'x=$(cat <<EOF\neval {v}\nEOF\n); bash -c "$x"',
    // a value that is the whole script a shell reads: the shell named by its path, behind a wrapper, with `-s ARGS`
    // or `/dev/stdin` (accepted before this change too, and run: the review ran the first)
    '/bin/bash <<EOF\n{v}\nEOF',
    'timeout 5 bash <<EOF\n{v}\nEOF',
    'nice -n 5 /usr/bin/env bash <<EOF\n{v}\nEOF',
    'bash -s x <<EOF\n{v}\nEOF',
    'bash /dev/stdin x <<EOF\n{v}\nEOF',
    'echo {v} | /bin/bash',
    'echo {v} | timeout 5 sh -s',
    '/bin/bash <<< {v}',
  ])('still refuses %j', (template) => {
    expect(checkEntrypoint(`bash:${template}`, { skillDir: dir, schema })).toContainEqual(
      expect.objectContaining({ code: 'bad-template' }),
    );
  });
});

describe('bash: a command substitution in a here-document body is still checked where the body goes', () => {
  it.each(['bash <<EOF\n$(printf %s {v})\nEOF', 'cat <<EOF | sh\nx $(printf %s {v})\nEOF'])(
    'refuses %j',
    (template) => {
      expect(checkEntrypoint(`bash:${template}`, { skillDir: dir, schema })).toContainEqual(
        expect.objectContaining({ code: 'bad-template' }),
      );
    },
  );

  it('resolves one that cat prints', () => {
    expect(
      checkEntrypoint('bash:cat <<EOF\nhi $(printf %s {v}) there\nEOF', { skillDir: dir, schema }),
    ).toEqual([]);
  });

  // Not refused, as before the change (`eval` of a value asks for approval): the body is not taken for data.
  it.each([
    '/bin/bash <<EOF\neval {v}\nEOF',
    '(cat <<EOF\neval {v}\nEOF\n) | bash',
    'cat <<EOF |\neval {v}\nEOF\nbash',
  ])('still asks for approval at %j', (template) => {
    const { problems, warnings } = inspectEntrypoint(`bash:${template}`, { skillDir: dir, schema });
    expect([...problems, ...warnings].length).toBeGreaterThan(0);
  });

  // Arithmetic in a body cat prints is what bash prints: an integer is inert there (review of 72e4db45: refused with
  // "as (part of) the command name").
  it.each(['cat <<EOF\nsum: $(( {n} + 1 ))\nEOF', 'cat <<EOF\nsum: $[ {n} + 1 ]\nEOF'])(
    'resolves %j with an integer',
    (template) => {
      const integer = { type: 'object', properties: { n: { type: 'integer' } } };
      expect(checkEntrypoint(`bash:${template}`, { skillDir: dir, schema: integer })).toEqual([]);
    },
  );
});
