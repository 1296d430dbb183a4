import {
  type CodeForm,
  type Danger,
  type OperandRule,
  type OptionEntry,
  type ProgramEntry,
  programEntry,
  type SubcommandEntry,
} from './code-taking-programs.js';

/*
 * Reading an argv the way a program of the code-taking table reads it (see code-taking-programs.ts for the rules:
 * bundles, glued values, abbreviations, `--`, runners).
 */

/** One argument's place in an argv, as the program reads it. */
export interface ArgumentRole {
  readonly index: number;
  /** `option`: an option word; `value`: the value of the option before it; `operand`; `end`: a `--`. */
  readonly role: 'option' | 'value' | 'operand' | 'end' | 'program';
  /** The dangerous option the word is or carries (a bundle `-ne`: the `e`), or the operand's rule. */
  readonly danger?: DangerousOption;
}

/** A code-taking or file-writing argument: what `dangerousOption` returns. */
export interface DangerousOption {
  /** The program that reads it (for a command run by `xargs`/`find -exec`/`timeout`: that command). */
  readonly program: string;
  /** How it is written: `-e`, `--output`, `-exec`, `config` (a git subcommand), or `operand`. */
  readonly option: string;
  readonly danger: Danger;
  readonly form?: CodeForm;
  readonly what: string;
  /** Where the code or path is: the index of the value word, when it is a word of its own. */
  readonly valueIndex?: number;
  /** The value when it is glued to the option (`-ecode`, `--output=F`). */
  readonly gluedValue?: string;
  /** The files it writes when its value names them rather than being one (curl's `-w '%output{F}'`). */
  readonly written?: readonly string[];
}

/**
 * Whether word `index` of `argv` (argv[0] is the program, as in execve) is, or carries, a code-taking or
 * file-writing option or operand of the program that reads it. Commands run by runners are followed:
 * `xargs sh -c CODE` (index 3 is sh's -c … index 2 is `-c`), `find . -exec rm {} ;` (index 2 is `-exec`),
 * `git -c x=y log` (index 1), `git log --outp=F` (index 2), `perl -ne CODE` (index 1).
 * A value word of a dangerous option is not itself reported (ask about the option's index).
 */
export function dangerousOption(argv: readonly string[], index: number): DangerousOption | undefined {
  return readArgv(argv).find((role) => role.index === index)?.danger;
}

/** `dangerousOption(argv, index) !== undefined`. */
export function isDangerousOption(argv: readonly string[], index: number): boolean {
  return dangerousOption(argv, index) !== undefined;
}

/** Every code-taking and file-writing argument of the command (runners followed), in argv order. */
export function dangerousArguments(argv: readonly string[]): DangerousOption[] {
  return readArgv(argv).flatMap((role) => (role.danger ? [role.danger] : []));
}

/**
 * Reads an argv (argv[0] the program) the way the program would, returning each word's role. Programs that are
 * not in the table yield only `program` and `operand` roles (no danger known).
 */
export function readArgv(argv: readonly string[], offset = 0): ArgumentRole[] {
  const roles: ArgumentRole[] = [];
  const program = argv[0];
  if (program === undefined) return roles;
  roles.push({ index: offset, role: 'program' });
  const entry = programEntry(program);
  if (!entry) {
    for (let i = 1; i < argv.length; i++) roles.push({ index: offset + i, role: 'operand' });
    return roles;
  }
  const name = program.slice(program.lastIndexOf('/') + 1);
  if (entry.syntax === 'find') {
    readFind(name, entry, argv, offset, roles);
    return roles;
  }
  // `tar xzf FILE`: the first word is a bundle without its dash
  const first = argv[1];
  const words =
    entry.dashlessBundle && first !== undefined && /^[A-Za-z]+$/.test(first)
      ? [argv[0]!, `-${first}`, ...argv.slice(2)]
      : argv;
  new ArgvReader(name, entry, words, offset, roles).read(entry, 1, entry.syntax);
  return roles;
}

interface Scope {
  readonly options: readonly OptionEntry[];
  readonly operands?: OperandRule;
  readonly subcommands?: Readonly<Record<string, SubcommandEntry>>;
}

class ArgvReader {
  constructor(
    private readonly program: string,
    private readonly entry: ProgramEntry,
    private readonly argv: readonly string[],
    private readonly offset: number,
    private readonly roles: ArgumentRole[],
  ) {}

  private operandsFrom(i: number): void {
    for (let j = i; j < this.argv.length; j++) this.roles.push({ index: this.offset + j, role: 'operand' });
  }

  read(scope: Scope, start: number, syntax: 'getopt' | 'posix', program = this.program): void {
    const { argv, offset, roles } = this;
    let optionsEnded = false;
    let operandCount = 0;
    let codeGiven = false;
    for (let i = start; i < argv.length; i++) {
      const word = argv[i]!;
      const at = offset + i;
      if (!optionsEnded && word === '--') {
        roles.push({ index: at, role: 'end' });
        optionsEnded = true;
        continue;
      }
      const option = optionsEnded ? undefined : matchOption(program, scope.options, argv, i, offset);
      if (option) {
        const found = option.entry;
        if (found?.danger === 'code' && (found.form === 'script' || found.form === 'file')) codeGiven = true;
        roles.push({ index: at, role: 'option', ...(option.danger ? { danger: option.danger } : {}) });
        if (option.takesNext && i + 1 < argv.length) {
          // `sh -c -x -- CODE`: an operand value comes after any further options and a `--`
          const at = option.valueAt ?? i + 1;
          for (let k = i + 1; k < at; k++) roles.push({ index: offset + k, role: 'option' });
          i = at;
          if (i >= argv.length) return;
          roles.push({ index: offset + i, role: 'value' });
        }
        if (found?.lookupOnly) {
          // `command -v NAME`: nothing runs
          this.operandsFrom(i + 1);
          return;
        }
        if (found?.form === 'script' && this.entry.codeEndsOptions) {
          // `sh -c CODE`, `python3 -c CODE`: what follows is the code's own argv, never options of the program
          this.operandsFrom(i + 1);
          return;
        }
        continue;
      }
      if (scope.subcommands && operandCount === 0) {
        const sub = scope.subcommands[word];
        const danger = sub?.danger
          ? { program, option: word, danger: sub.danger, what: sub.what ?? '' }
          : undefined;
        roles.push({ index: at, role: 'operand', ...(danger ? { danger } : {}) });
        if (this.entry.subcommandsKeepOptions) {
          const options = [...scope.options, ...(sub?.options ?? [])];
          const operands = sub ? sub.operands : scope.operands;
          this.read({ options, ...(operands ? { operands } : {}) }, i + 1, syntax, program);
          return;
        }
        // an unknown subcommand: its words are read with no options known
        if (sub) this.read(sub, i + 1, 'getopt', `${program} ${word}`);
        else this.operandsFrom(i + 1);
        return;
      }
      const rule = scope.operands;
      if (rule?.kind === 'command' && operandCount >= (rule.skip ?? 0)) {
        if (!(rule.assignments && /^[A-Za-z_]\w*=/.test(word))) {
          for (const role of readArgv(argv.slice(i), offset + i)) roles.push(role);
          return;
        }
        roles.push({ index: at, role: 'operand' });
        continue;
      }
      const danger = operandDanger(program, rule, word, operandCount, codeGiven, at);
      roles.push({ index: at, role: 'operand', ...(danger ? { danger } : {}) });
      operandCount += 1;
      if (syntax === 'posix') {
        optionsEnded = true;
        if (rule?.kind === 'script-file' && operandCount === 1) {
          // `python3 script.py --flag`: the rest is the script's argv
          this.operandsFrom(i + 1);
          return;
        }
      }
    }
  }
}

function operandDanger(
  program: string,
  rule: OperandRule | undefined,
  word: string,
  count: number,
  codeGiven: boolean,
  at: number,
): DangerousOption | undefined {
  if (!rule) return undefined;
  const found = (danger: Danger, what: string, form?: CodeForm): DangerousOption => ({
    program,
    option: 'operand',
    danger,
    what,
    valueIndex: at,
    ...(form ? { form } : {}),
  });
  switch (rule.kind) {
    case 'script':
      return count === 0 && !codeGiven ? found('code', rule.what, 'script') : undefined;
    case 'script-file':
      return count === 0 && !codeGiven ? found('code', rule.what, 'file') : undefined;
    case 'shell-command':
      return count >= (rule.skip ?? 0) ? found('code', rule.what, 'script') : undefined;
    case 'written':
      return found('file-write', rule.what);
    case 'assignment-code':
      return /^[A-Za-z_]\w*=/.test(word) ? found('code', rule.what, 'setting') : undefined;
    default:
      return undefined;
  }
}

interface OptionMatch {
  readonly entry?: OptionEntry;
  readonly danger?: DangerousOption;
  /** The next word is the option's value. */
  readonly takesNext: boolean;
  /** Where that value is when it is not the next word (an `operand` value after more options); may be past the end. */
  readonly valueAt?: number;
}

function matchOption(
  program: string,
  options: readonly OptionEntry[],
  argv: readonly string[],
  i: number,
  offset: number,
): OptionMatch | undefined {
  const word = argv[i]!;
  const hasNext = i + 1 < argv.length;
  const match = (
    entry: OptionEntry,
    option: string,
    glued: string | undefined,
    next: boolean,
  ): OptionMatch => {
    if (!entry.danger) return { entry, takesNext: next };
    let written: readonly string[] | undefined;
    if (entry.writtenIn) {
      // only a value that names files makes the option write one (`-w '%output{F}'`, not `-w '%{url}'`)
      const value = glued ?? (next && hasNext ? argv[i + 1]! : undefined);
      written = value === undefined ? [] : entry.writtenIn(value);
      if (written.length === 0) {
        const { danger: _writes, ...harmless } = entry;
        return { entry: harmless, takesNext: next };
      }
    }
    const danger: DangerousOption = {
      program,
      option,
      danger: entry.danger,
      what: entry.what ?? '',
      ...(entry.form ? { form: entry.form } : {}),
      ...(next && hasNext ? { valueIndex: offset + i + 1 } : {}),
      ...(glued === undefined ? {} : { gluedValue: glued }),
      ...(written ? { written } : {}),
    };
    return { entry, danger, takesNext: next };
  };
  const takes = (entry: OptionEntry) => entry.value ?? 'required';
  // whole words first: `-exec`, `-cmd`, `-TT`, `of=FILE`, `+cmd`
  for (const entry of options) {
    if (entry.word !== undefined) {
      if (word === entry.word) return match(entry, entry.word, undefined, takes(entry) !== 'none');
      if (word.startsWith(`${entry.word}=`))
        return match(entry, entry.word, word.slice(entry.word.length + 1), false);
    }
    if (
      entry.startsWith !== undefined &&
      word.length > entry.startsWith.length &&
      word.startsWith(entry.startsWith)
    )
      return match(entry, entry.startsWith, word.slice(entry.startsWith.length), false);
  }
  if (word.startsWith('--') && word.length > 2) {
    const eq = word.indexOf('=');
    const name = word.slice(2, eq === -1 ? undefined : eq);
    const glued = eq === -1 ? undefined : word.slice(eq + 1);
    // an abbreviation: a prefix of a dangerous long option counts as it (getopt_long and git accept prefixes)
    const entry =
      options.find((o) => o.long === name) ?? options.find((o) => o.danger && o.long?.startsWith(name));
    if (!entry) return { takesNext: false };
    const next = glued === undefined && (takes(entry) === 'required' || takes(entry) === 'operand');
    const found = match(entry, `--${entry.long}`, glued, next);
    return next && takes(entry) === 'operand' ? operandMatch(found, options, argv, i, offset) : found;
  }
  if (word.startsWith('-') && word.length > 1) {
    // a bundle of short options: `-ne CODE`, `-xvf FILE`, `-oFILE`, `-ec CODE`
    let operandValue: OptionMatch | undefined;
    let lookup: OptionEntry | undefined;
    for (let k = 1; k < word.length; k++) {
      const entry = options.find((o) => o.short === word[k]);
      if (!entry) continue;
      const value = takes(entry);
      if (value === 'none') {
        if (entry.danger) return match(entry, `-${entry.short}`, undefined, false);
        if (entry.lookupOnly) lookup = entry;
        continue;
      }
      if (value === 'operand') {
        operandValue ??= operandMatch(
          match(entry, `-${entry.short}`, undefined, true),
          options,
          argv,
          i,
          offset,
        );
        continue;
      }
      const rest = word.slice(k + 1);
      const glued = rest === '' ? undefined : rest;
      if (operandValue?.danger && !entry.danger) return operandValue;
      return match(entry, `-${entry.short}`, glued, glued === undefined && value === 'required');
    }
    return operandValue ?? (lookup ? { entry: lookup, takesNext: false } : { takesNext: false });
  }
  return undefined;
}

/**
 * An option whose value is the program's first operand (`sh -c CODE`): options, their values and a `--` may stand
 * between them (`sh -c -e -- CODE`, `bash -c -o pipefail CODE`), so the value is the first word that is none of these.
 */
function operandMatch(
  found: OptionMatch,
  options: readonly OptionEntry[],
  argv: readonly string[],
  i: number,
  offset: number,
): OptionMatch {
  let k = i + 1;
  while (k < argv.length) {
    const word = argv[k]!;
    if (word === '--') {
      k += 1;
      break;
    }
    if (!/^[-+]./.test(word)) break;
    const last = options.find((o) => o.short === word.at(-1) && !/^--/.test(word));
    k += last && (last.value ?? 'required') === 'required' && last.danger === undefined ? 2 : 1;
  }
  if (k === i + 1 || !found.danger) return k === i + 1 ? found : { ...found, valueAt: k };
  const { valueIndex: _next, ...danger } = found.danger;
  return { ...found, danger: k < argv.length ? { ...danger, valueIndex: offset + k } : danger, valueAt: k };
}

/** find: options (-H -L -P -D x -Ox), start points, then the expression; `-exec … ;` runs a command. */
function readFind(
  program: string,
  entry: ProgramEntry,
  argv: readonly string[],
  offset: number,
  roles: ArgumentRole[],
): void {
  for (let i = 1; i < argv.length; i++) {
    const word = argv[i]!;
    const option = entry.options.find((o) => o.word === word);
    if (!option) {
      roles.push({ index: offset + i, role: word.startsWith('-') ? 'option' : 'operand' });
      continue;
    }
    const danger: DangerousOption = {
      program,
      option: word,
      danger: option.danger!,
      what: option.what ?? '',
      ...(option.form ? { form: option.form } : {}),
      ...(option.value === 'none' || i + 1 >= argv.length ? {} : { valueIndex: offset + i + 1 }),
    };
    roles.push({ index: offset + i, role: 'option', danger });
    if (option.form === 'command') {
      // the command runs until a `;` or `+` word
      let end = i + 1;
      while (end < argv.length && argv[end] !== ';' && argv[end] !== '+') end += 1;
      for (const role of readArgv(argv.slice(i + 1, end), offset + i + 1)) roles.push(role);
      if (end < argv.length) roles.push({ index: offset + end, role: 'operand' });
      i = end;
    } else if (option.value !== 'none' && i + 1 < argv.length) {
      i += 1;
      roles.push({ index: offset + i, role: 'value' });
    }
  }
}
