import type { CommandSource } from './bash-command-flow.js';
import { hasExpansion, literalText, splitWords, type Word } from './bash-words.js';
import { type ArgumentRole, readArgv } from './code-taking-argv.js';
import { programEntry } from './code-taking-programs.js';
import { awkRunsCommands, sedRunsCommands } from './code-taking-scripts.js';

/**
 * A `bash:` template command that can run a value as code (the table of code-taking-programs.ts): `skills check`
 * warns, and the tool asks for approval before each call unless its block says `approval: never`.
 */
export interface CodeTakingWarning {
  code: 'code-taking-command';
  message: string;
  /** The program that runs the code (`sh`, `perl`, `git log`), as the table names it. */
  program: string;
  /** The option that takes the code (`-c`, `-e`, `--to-command`), `operand` (an awk or sed program), or the file run. */
  option: string;
  /** Offset into the template (the scheme adds the entrypoint's). */
  offset: number;
}

/** One simple command of a template, as the scanner's first pass ended it. */
export interface ScannedCommand {
  source: CommandSource;
  /** An earlier stage of its pipeline held a value, so what it reads may be one. */
  pipeInput: boolean;
}

/** Words that start a command without being its program. */
const RESERVED = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until']);
const ASSIGNMENT = /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/;
/** Runners that put the data they read into the command they run, in place of `{}` (or xargs' -I string). */
const SUBSTITUTING = new Set(['xargs', 'find', 'parallel', 'sem']);
const APPROVAL_NOTE =
  'the tool asks for approval before each call; write `approval: never` in the tool block if every value is safe there';

/**
 * The commands of a template that can run a value as code. Only templates with placeholders are checked: without a
 * value there is nothing of the model's to run. What is reported, per command:
 * - a code-taking option or operand whose code holds a value or an expansion (`perl -e "…{x}…"`, `awk "/{x}/"`,
 *   `git -c {x} log`, `ssh host ls {x}`, `python3 {script}`);
 * - inline code in a language this check cannot follow (Perl, Python, JavaScript, Ruby, …: it can read its
 *   arguments, environment and input and evaluate them), even when literal, and such a program reading its code
 *   from input;
 * - a literal awk program or sed script that runs commands (`system()`, `| getline`, `print | "cmd"`, sed `e`,
 *   `s///e`): the data it reads may be a value;
 * - shell code run by `xargs`/`find -exec` that holds `{}` (the data read, a value, is pasted into the code), and a
 *   command whose program is `{}`;
 * - a file the template writes and then runs (`… > f.sh; sh f.sh`, `python3 f.py`, `./f`, `sh < f`).
 */
export function codeTakingWarnings(
  commands: readonly ScannedCommand[],
  hasValues: boolean,
): CodeTakingWarning[] {
  if (!hasValues) return [];
  const parsed = commands.map(parseCommand).filter((c) => c.argv.length > 0);
  const written = new Set(parsed.flatMap((c) => c.writes));
  const warnings: CodeTakingWarning[] = [];
  const seen = new Set<string>();
  const warn = (command: ParsedCommand, index: number, program: string, option: string, why: string) => {
    const offset = command.offsetOf(index);
    const key = `${offset}\u0000${program}\u0000${option}`;
    if (seen.has(key)) return;
    seen.add(key);
    warnings.push({
      code: 'code-taking-command',
      message: `\`${program}${option === 'operand' || option === 'command' ? '' : ` ${option}`}\` ${why}; ${APPROVAL_NOTE}`,
      program,
      option,
      offset,
    });
  };
  for (const command of parsed) {
    for (const found of findings(command, written))
      warn(command, found.index, found.program, found.option, found.why);
  }
  return warnings;
}

interface ParsedCommand {
  /** The words from the program on, as written (quotes kept). */
  raw: readonly string[];
  /** The same words after quote removal. */
  argv: readonly string[];
  /** Literal files it writes (`> f`, `tee f`, `-o f`), normalised. */
  writes: string[];
  /** Literal files it reads as input (`< f`), normalised. */
  inputs: string[];
  /** Whether something other than its arguments feeds its input: a pipe from a value, a redirection, a here-doc. */
  input: boolean;
  /** Whether that input may be a value: a pipe from a stage that held one, a here-string of a value or expansion. */
  valueInput: boolean;
  offsetOf(index: number): number;
}

function parseCommand({ source, pipeInput }: ScannedCommand): ParsedCommand {
  const words = splitWords(source.text);
  const kept: Word[] = [];
  const writes: string[] = [];
  const inputs: string[] = [];
  let input = pipeInput;
  let valueInput = pipeInput;
  for (let k = 0; k < words.length; k++) {
    const word = words[k]!;
    if (word.op) {
      const target = words[k + 1];
      k += 1;
      if (word.raw.includes('<')) input = true;
      if (/<<<$/.test(word.raw) && (!target || isDynamic(target.raw))) valueInput = true;
      if (!target || isDynamic(target.raw)) continue;
      const path = normalise(literalText(target.raw));
      if (/^\d*(>|>>|>\||&>|&>>|<>)$/.test(word.raw)) writes.push(path);
      else if (/^\d*<$/.test(word.raw)) inputs.push(path);
      continue;
    }
    if (kept.length === 0 && (RESERVED.has(word.raw) || ASSIGNMENT.test(word.raw))) continue;
    kept.push(word);
  }
  const raw = kept.map((w) => w.raw);
  const argv = raw.map(literalText);
  const at = (index: number) => source.offsets[kept[index]?.start ?? 0] ?? source.offsets[0] ?? 0;
  // files written through the table's file-writing options and operands (`tee f`, `curl -o f`, `sort -o f`)
  for (const role of readArgv(argv)) {
    const danger = role.danger;
    if (danger?.danger !== 'file-write') continue;
    const value =
      danger.gluedValue ?? (danger.valueIndex === undefined ? undefined : argv[danger.valueIndex]);
    const rawValue = danger.valueIndex === undefined ? raw[role.index] : raw[danger.valueIndex];
    if (value === undefined || rawValue === undefined || isDynamic(rawValue)) continue;
    // the files a value names (`-w '%output{F}'`), else the value itself (`-o F`)
    for (const file of danger.written ?? [value]) writes.push(normalise(file));
  }
  return { raw, argv, writes, inputs, input, valueInput, offsetOf: at };
}

interface Finding {
  index: number;
  program: string;
  option: string;
  why: string;
}

function findings(command: ParsedCommand, written: ReadonlySet<string>): Finding[] {
  const { raw, argv } = command;
  const out: Finding[] = [];
  const roles = readArgv(argv);
  const programs = roles.filter((r) => r.role === 'program');
  const codeValues = new Set(
    roles.flatMap((r) => (r.danger?.valueIndex === undefined ? [] : [r.danger.valueIndex])),
  );
  // The scanner refuses a value as the template's own program; a runner's command (`timeout 5 {x}`, `find -exec {{}}`)
  // named by a value or by the data it reads is reported here (once: `-exec {x}` is already the option's code).
  for (const role of programs) {
    const word = raw[role.index]!;
    const runner = argv[ownerOf(programs, role.index - 1)]!;
    if (role.index > 0 && (isDynamic(word) || word.includes('{}'))) {
      // a value there is the option's code (reported below); `{}` is the data the runner reads
      if (!(codeValues.has(role.index) && isDynamic(word)))
        out.push({
          index: role.index,
          program: runner,
          option: 'command',
          why: 'runs a program named by a value',
        });
    } else if (written.has(normalise(argv[role.index]!)) && argv[role.index]!.includes('/'))
      out.push({
        index: role.index,
        program: argv[role.index]!,
        option: 'command',
        why: writtenThenRun,
      });
  }
  out.push(...unknownPrograms(command, programs));
  const coded = new Set<number>(); // programs whose code came from an option or operand
  for (const role of roles) {
    const danger = role.danger;
    if (danger?.danger !== 'code') continue;
    const program = danger.program;
    const owner = ownerOf(programs, role.index);
    const codeIndex = danger.gluedValue === undefined ? (danger.valueIndex ?? role.index) : role.index;
    const codeRaw = raw[codeIndex] ?? '';
    const code = danger.gluedValue ?? argv[codeIndex] ?? '';
    if (danger.form === 'file' && code === '-') continue; // `python3 -`: the code is its input (below)
    coded.add(owner);
    const entry = programEntry(program.split(' ')[0]!);
    const found = (why: string) =>
      out.push({ index: role.index, program, option: danger.option, why: `${danger.what}, and ${why}` });
    if (isDynamic(codeRaw)) found('a value can reach that code');
    else if (danger.form === 'file' && written.has(normalise(code)))
      out.push({ index: role.index, program, option: code, why: writtenThenRun });
    else if (danger.form === 'script' && entry?.opaque)
      found(
        `${entry.language} code can run its arguments, environment or input as code, which this check cannot follow`,
      );
    else if (danger.form === 'script' && entry?.language === 'awk' && awkRunsCommands(code))
      found('the program runs commands (system, pipes): the data it reads may be a value');
    else if (danger.form === 'script' && entry?.language === 'sed' && sedRunsCommands(code))
      found('the script runs commands (e, s///e): the data it reads may be a value');
    else if (danger.form === 'script' && pastesData(argv, programs, owner, code))
      found('`{}` in it is replaced by the data read, which may be a value');
  }
  // a program that reads its code from input or from a file of its own (`make`: Makefile), with no code in its arguments
  for (const role of programs) {
    if (coded.has(role.index)) continue;
    const program = argv[role.index]!;
    const entry = programEntry(program);
    const implicit = entry?.implicitCode?.find((file) => written.has(file));
    if (implicit) out.push({ index: role.index, program, option: implicit, why: writtenThenRun });
    if (!entry?.readsCodeFromInput) continue;
    const file = command.inputs.find((path) => written.has(path));
    if (file) out.push({ index: role.index, program, option: `< ${file}`, why: writtenThenRun });
    else if (command.input && entry.opaque)
      out.push({
        index: role.index,
        program,
        option: 'input',
        why: `reads ${entry.language} code from its input, which may hold a value`,
      });
  }
  return out;
}

/** Runners that turn what they read into the command they run: its words (xargs) or whole lines (parallel). */
const INPUT_TO_COMMAND: Readonly<Record<string, string>> = {
  xargs:
    'makes the words it reads arguments of the command it runs, so a value on its input can be an option or the script of a shell (xargs sh -c)',
  parallel: 'runs the lines it reads as commands, so a value on its input is code',
};

/**
 * Programs this check cannot read, so it assumes the worst:
 * - a program named by an expansion (`$SHELL -c {x}`, `… | "$BASH"`, `${PY} -c {x}`): it may be a shell that runs a
 *   value in its arguments or input as code;
 * - xargs or parallel reading a value (`xargs sh -c <<< {x}`): the value becomes their command's arguments or code.
 */
function unknownPrograms(command: ParsedCommand, programs: readonly ArgumentRole[]): Finding[] {
  const { raw, argv } = command;
  const out: Finding[] = [];
  const valueArguments = raw.slice(1).some(isDynamic);
  if (hasExpansion(raw[0] ?? '') && (valueArguments || command.valueInput))
    out.push({
      index: 0,
      program: raw[0]!,
      option: 'command',
      why: 'is a program named by an expansion, which this check cannot know: a value in its arguments or input may run as code (a shell such as $SHELL runs it)',
    });
  if (!command.valueInput) return out;
  for (const role of programs) {
    const name = argv[role.index]!.replace(/^.*\//, '');
    const why = INPUT_TO_COMMAND[name];
    if (why && (name !== 'xargs' || xargsRunsInput(argv, programs, role.index)))
      out.push({ index: role.index, program: name, option: 'input', why });
  }
  return out;
}

/**
 * Whether xargs at `at` can hand what it reads to its command as code. With -I the data goes only where the
 * replace string is (checked as pasted data). Otherwise it is appended: as the code of an option that takes it
 * (`xargs sh -c`), and, unless items are whole (-0, -d), split into words that can themselves be the command's
 * code-taking options (`xargs perl` given `-e CODE`).
 */
function xargsRunsInput(argv: readonly string[], programs: readonly ArgumentRole[], at: number): boolean {
  const next = programs.find((r) => r.index > at)?.index;
  const own = argv.slice(at + 1, next);
  if (own.some((w) => /^(-I|-i|--replace)/.test(w))) return false;
  if (next === undefined) return false; // xargs alone runs echo
  const appended = [...argv.slice(next), '\u0001'];
  const last = appended.length - 1;
  const roles = readArgv(appended);
  if (roles.some((r) => r.danger?.danger === 'code' && (r.danger.valueIndex === last || r.index === last)))
    return true;
  const whole = own.some((w) => /^(-0|--null|-d|--delimiter)/.test(w) || /^-[a-zA-Z]*0/.test(w));
  const entry = programEntry(argv[next]!);
  return !whole && entry?.options.some((o) => o.danger === 'code') === true;
}

const writtenThenRun = 'runs a file the template writes: a value written there runs as code';

/** The index of the program that reads the word at `index` (the last program word at or before it). */
function ownerOf(programs: readonly ArgumentRole[], index: number): number {
  let owner = 0;
  for (const role of programs) if (role.index <= index) owner = role.index;
  return owner;
}

/** Shell code run by xargs or find that holds the string they replace with the data they read. */
function pastesData(
  argv: readonly string[],
  programs: readonly ArgumentRole[],
  owner: number,
  code: string,
): boolean {
  const runners = programs.filter((r) => r.index < owner).map((r) => argv[r.index]!.replace(/^.*\//, ''));
  if (!runners.some((name) => SUBSTITUTING.has(name))) return false;
  const replace = argv.find((w, k) => k < owner && /^-I./.test(w))?.slice(2) ?? replaceAfterI(argv, owner);
  return code.includes('{}') || (replace !== undefined && code.includes(replace));
}

function replaceAfterI(argv: readonly string[], owner: number): string | undefined {
  const k = argv.findIndex((w, j) => j < owner && (w === '-I' || w === '--replace'));
  if (k !== -1) return argv[k + 1];
  return argv.find((w, j) => j < owner && w.startsWith('--replace='))?.slice('--replace='.length);
}

/** Whether a word, as written, holds a value or an expansion (quotes respected; a value in '…' is spliced in). */
function isDynamic(raw: string): boolean {
  return /[\u0001\u0004]/.test(raw) || hasExpansion(raw);
}

function normalise(path: string): string {
  return path.replace(/^(\.\/)+/, '').replace(/\/\.\//g, '/');
}
