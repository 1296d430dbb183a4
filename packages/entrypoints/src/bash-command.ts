import { literalText, splitWords } from './bash-words.js';

/**
 * Which command a placeholder is an argument of. Quoting keeps a value one word, but some bash builtins
 * evaluate their arguments as code or as variable names (whose array subscripts are arithmetic, and
 * arithmetic runs `$( … )`): a value there would run. Those positions are refused, as is the command name
 * itself, which would let the model choose the program (that is what the raw `{command}` template is for).
 */

/** Words that introduce the real command. */
export const PREFIXES: ReadonlySet<string> = new Set([
  '!',
  '{',
  'if',
  'then',
  'else',
  'elif',
  'do',
  'while',
  'until',
  'time',
  'exec',
  'command',
  'builtin',
  'nohup',
  'env',
  'sudo',
  'coproc',
]);

/** Builtins that treat an argument as code (or as a name whose subscript is evaluated). */
const EVALUATING = new Set([
  'let',
  'eval',
  'trap',
  'source',
  '.',
  'read',
  'compgen',
  'complete',
  'bind',
  'fc',
  'mapfile',
  'readarray',
  'enable',
  // name arguments: an array element's subscript is arithmetic (`unset 'a[$(cmd)]'` runs cmd)
  'unset',
  'getopts',
  // `history -s` stores a line that `fc -s` then runs
  'history',
]);

/** Shells: the word after `-c` is a script, and so is what they read from a here-string or here-document. */
export const SHELLS: ReadonlySet<string> = new Set([
  'bash',
  'sh',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'ash',
  'posh',
  'yash',
]);
const SCRIPT_FLAG = /^-[A-Za-z]*c[A-Za-z]*$/;

/** Builtins that take NAME or NAME=value: only the value side may hold a placeholder. */
const DECLARING = new Set(['declare', 'typeset', 'local', 'readonly', 'export']);

/**
 * At the top level `declare x="$v"` re-parses a value like `([$(cmd)]=1)` as a compound array assignment
 * when x is (or is declared as) an array, and whether it is cannot be known from the template.
 */
const REPARSING = new Set(['declare', 'typeset']);

const ASSIGNMENT = /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/;
const REDIRECT = /^(\d*|&)(<|>|>>|<<<|>&|<&|>\|)/;
const REDIRECT_ONLY = /^(\d*|&)(<|>|>>|<<<|>&|<&|>\|)$/;

/** Why a value may not stand somewhere; `arithmetic` problems go away when the value is a decimal integer. */
export interface PositionProblem {
  message: string;
  arithmetic?: boolean;
}

/** Variables whose assigned value bash evaluates: as arithmetic ('integer') or otherwise ('code'). */
export type Attributed = ReadonlyMap<string, 'integer' | 'code'>;

interface CommandWords {
  /** The words that precede the command name (prefixes, assignments, redirections). */
  complete: string[];
  /** The words from the command name on, after quote removal. */
  rest: string[];
  /** The unfinished word the value stands in, after quote removal. */
  partial: string;
  /** The command name as written, when there is one. */
  rawName?: string;
}

function commandWords(command: string): CommandWords {
  // A line continuation vanishes before bash reads words: `ev\<newline>al` is `eval`.
  command = command.replace(/\\\n/g, '');
  const words = command.split(/[ \t\n]+/);
  const partial = unquote(words.pop() ?? '');
  const raw = words.filter(Boolean);
  const complete = raw.map(unquote);

  let k = 0;
  while (k < complete.length) {
    const word = complete[k]!;
    if (
      PREFIXES.has(word) ||
      ASSIGNMENT.test(word) ||
      (k > 0 && PREFIXES.has(complete[k - 1]!) && word.startsWith('-'))
    ) {
      k += 1;
    } else if (REDIRECT.test(word)) {
      k += REDIRECT_ONLY.test(word) ? 2 : 1;
    } else if (word === 'function') {
      k += 2; // `function NAME { … }`: the body's first command comes after the name
    } else if (k > 0 && complete[k - 1] === 'coproc' && complete[k + 1] === '{') {
      k += 1; // `coproc NAME { … }`
    } else break;
  }
  return {
    complete: complete.slice(0, k),
    rest: complete.slice(k),
    partial,
    ...(k < raw.length ? { rawName: raw[k]! } : {}),
  };
}

/**
 * The command name as written (`$tool`, `"${cmd}"`, `grep`) for the simple command whose source is `command`, or
 * undefined while the value would itself be (part of) the name.
 */
export function commandName(command: string): string | undefined {
  return commandWords(command).rawName;
}

/**
 * Whether a `$var` standing at the end of `command` is split into words and globbed: not as an assignment's value,
 * a here-string, the word of `case`, or inside `[[ … ]]` (the caller knows about quotes and `[[`).
 */
export function expansionSplits(command: string, inArrayLiteral = false): boolean {
  if (inArrayLiteral) return true;
  const { complete, rest, partial } = commandWords(command);
  if (partial.startsWith('<<<') || (partial === '' && (rest.at(-1) ?? complete.at(-1)) === '<<<'))
    return false;
  if (rest.length === 0) return !ASSIGNMENT.test(partial);
  const first = rest[0]!;
  if (DECLARING.has(first) && ASSIGNMENT.test(partial)) return false;
  return !(first === 'case' && rest.length === 1);
}

/**
 * `command` is the source text of the current simple command up to the value (quoted parts included, other values
 * marked with \u0001). `label` names the value in messages (`{path}`, `$x (from {path})`). Returns why the value may
 * not stand there, or undefined.
 */
export function commandPositionProblem(
  command: string,
  label: string,
  attributed: Attributed = new Map(),
): PositionProblem | undefined {
  const { rest, partial } = commandWords(command);
  const ph = label;

  if (/^[A-Za-z_]\w*\[[^\]]*$/.test(partial) || openSubscript(command)) {
    return {
      message: `${ph} inside an array subscript: bash evaluates subscripts as arithmetic, which runs code`,
      arithmetic: true,
    };
  }
  const assigned = /^([A-Za-z_]\w*)(\[[^\]]*\])?\+?=/.exec(partial)?.[1];
  const kind = assigned === undefined ? undefined : attributed.get(assigned);
  const attributedProblem: PositionProblem | undefined = kind
    ? {
        message: `${ph} assigned to '${assigned}', an integer, nameref, prompt or startup-file variable: bash evaluates what is assigned to it`,
        arithmetic: kind === 'integer',
      }
    : undefined;
  if (rest.length === 0) {
    if (ASSIGNMENT.test(partial) || REDIRECT.test(partial)) return attributedProblem;
    return {
      message: `${ph} as (part of) the command name would let the argument choose the program; use the raw {command} template for that`,
    };
  }
  const first = rest[0]!;
  if (SHELLS.has(first)) {
    const problem = shellProblem(first, command, ph);
    if (problem) return { message: problem };
  }
  if (first === 'hash') {
    return { message: `${ph} is an argument of 'hash', which decides what program a command name runs` };
  }
  if (first === 'let')
    return { message: `${ph} is an argument of 'let', which evaluates it as arithmetic`, arithmetic: true };
  if (EVALUATING.has(first))
    return { message: `${ph} is an argument of '${first}', which evaluates it as code` };
  if (DECLARING.has(first)) {
    const flags = rest.slice(1).filter((w) => w.startsWith('-') || w.startsWith('+'));
    if (flags.some((f) => /n/.test(f)))
      return { message: `${ph} in '${first}' with -i/-n: bash evaluates the value` };
    if (flags.some((f) => /i/.test(f)))
      return {
        message: `${ph} in '${first}' with -i/-n: bash evaluates the value`,
        arithmetic: ASSIGNMENT.test(partial),
      };
    if (flags.some((f) => /[aA]/.test(f)))
      return {
        message: `${ph} in '${first}' with -a/-A: bash may parse the value as an array assignment with subscripts`,
      };
    if (!ASSIGNMENT.test(partial))
      return { message: `${ph} as a variable name of '${first}': bash evaluates array subscripts in names` };
    if (REPARSING.has(first)) {
      return {
        message: `${ph} in '${first}': bash may parse the value as an array assignment with subscripts; assign it plainly (x=${ph}) or with local`,
      };
    }
  }
  if (first === 'printf' && (rest.includes('-v') || partial.startsWith('-v')))
    return { message: `${ph} with 'printf -v', which evaluates variable names` };
  if (first === 'wait' && (rest.includes('-p') || partial.startsWith('-p')))
    return { message: `${ph} with 'wait -p', which assigns to the variable it names` };
  if (
    first === 'printf' &&
    rest.slice(1).every((w) => w.startsWith('-') && w !== '--') &&
    (partial === '' || partial.startsWith('-'))
  ) {
    return {
      message: `${ph} where printf still reads options: a value '-vNAME' would assign to NAME, evaluating its subscript; write printf -- … or printf '%s' ${ph}`,
    };
  }
  if (
    (first === 'test' || first === '[') &&
    partial === '' &&
    rest.length > 1 &&
    rest.at(-1)!.includes('\u0001')
  ) {
    // `test "$a" "$b"` with a='-v' tests the variable named by b, evaluating its subscript; `!` or '(' from a
    // value shift the grammar the same way. A literal operator between two values keeps them operands.
    return {
      message: `${ph} right after another value in '${first}': the first value could be read as an operator such as -v; put a literal operator between them (e.g. [ {a} = {b} ]) or use [[ … ]]`,
    };
  }
  if ((first === 'test' || first === '[') && (rest.includes('-v') || rest.includes('-R'))) {
    return { message: `${ph} in '${first} -v': bash evaluates variable names` };
  }
  return attributedProblem;
}

/** Bash's own integer variables: an assignment to them is evaluated as arithmetic. */
const INTEGER_VARIABLES = ['RANDOM', 'SRANDOM', 'OPTIND', 'HISTCMD', 'SECONDS', 'LINENO'];

/**
 * A shell runs as code the word after `-c`, else its first operand (a script file) or its input. A value there
 * would be the program (the model could name a file it wrote). Words are split with quotes respected: in
 * `sh -c "echo {x}"` the value is inside the script.
 */
function shellProblem(shell: string, command: string, ph: string): string | undefined {
  const { args, input, inWord } = shellArguments(command);
  const complete = inWord ? args.slice(0, -1) : args;
  const flag = complete.findIndex((w) => SCRIPT_FLAG.test(w));
  if (input && flag === -1) return `${ph} is what '${shell}' reads as its script`;
  if (input) return undefined;
  if (flag !== -1) {
    return complete.length === flag + 1
      ? `${ph} is the script of '${shell} -c', which runs it as code`
      : undefined;
  }
  if (complete.every((w) => /^[-+]/.test(w)))
    return `${ph} is the script file '${shell}' runs; name the script in the template`;
  return undefined;
}

interface ShellArguments {
  /** The arguments after the shell's name, after quote removal, redirections left out. */
  args: string[];
  /** Whether the end of the command is the target of an input redirection (`<`, `<<<`). */
  input: boolean;
  /** Whether the end of the command is inside the last argument (no word break before it). */
  inWord: boolean;
}

function shellArguments(command: string): ShellArguments {
  const text = command.replace(/\\\n/g, '');
  const words = splitWords(text);
  const last = words.at(-1);
  const reachesEnd = last !== undefined && last.start + last.raw.length >= text.length && !last.op;
  let k = 0;
  let afterPrefix = false;
  for (; k < words.length; k++) {
    const word = words[k]!;
    const literal = literalText(word.raw);
    if (word.op) k += 1;
    else if (PREFIXES.has(literal)) afterPrefix = true;
    else if (!(afterPrefix && literal.startsWith('-')) && !ASSIGNMENT.test(word.raw)) break;
  }
  const args: string[] = [];
  let input = false;
  let inWord = false;
  for (let j = k + 1; j < words.length; j++) {
    const word = words[j]!;
    if (word.op) {
      const target = words[j + 1];
      const open = target === undefined || (target === last && reachesEnd);
      input = word.raw.startsWith('<') && open;
      j += 1;
    } else {
      args.push(literalText(word.raw));
      input = false;
      inWord = word === last && reachesEnd;
    }
  }
  if (last?.op) input = last.raw.startsWith('<');
  return { args, input, inWord };
}

/**
 * The shell a command line starts, when that shell reads its script from standard input (no `-c`, no script file):
 * `bash`, `sh -s`, `bash -e`. `line` is the command's source up to its first newline.
 */
export function shellReadingInput(line: string): string | undefined {
  const shell = commandWords(`${line} `).rest[0];
  if (!shell || !SHELLS.has(shell)) return undefined;
  const { args } = shellArguments(`${line} `);
  return args.every((w) => /^[-+]/.test(w) && !SCRIPT_FLAG.test(w)) ? shell : undefined;
}

/**
 * Bash's own variables whose assigned value is code: prompt strings are expanded with command substitution (`PS4`
 * under `set -x`), `BASH_ENV`/`ENV` name a file a child bash sources, `BASH_CMDS` says what program a name runs.
 */
const CODE_VARIABLES = [
  'PS0',
  'PS1',
  'PS2',
  'PS3',
  'PS4',
  'PROMPT_COMMAND',
  'BASH_ENV',
  'ENV',
  'SHELLOPTS',
  'BASHOPTS',
  // a command name's program and an alias's text
  'BASH_CMDS',
  'BASH_ALIASES',
];

/**
 * Names the template gives the integer (-i) or nameref (-n) attribute anywhere: a later plain assignment to them
 * (`n={v}`, `n+={v}`, `export n={v}`) evaluates the value as arithmetic, or assigns through a reference.
 */
export function attributedNames(text: string): Map<string, 'integer' | 'code'> {
  const names = new Map<string, 'integer' | 'code'>();
  for (const name of INTEGER_VARIABLES) names.set(name, 'integer');
  for (const name of CODE_VARIABLES) names.set(name, 'code');
  const declaration =
    /(?:^|[\s;&|(){}])(?:declare|typeset|local|readonly|export)((?:[ \t]+[-+][A-Za-z]+)+)([^;&|\n)]*)/g;
  for (let match = declaration.exec(text); match; match = declaration.exec(text)) {
    if (!/[-+][A-Za-z]*[in]/.test(match[1]!)) continue;
    const kind = /[-+][A-Za-z]*n/.test(match[1]!) ? 'code' : 'integer';
    for (const word of match[2]!.split(/[ \t]+/)) {
      const name = /^["']?([A-Za-z_]\w*)/.exec(word)?.[1];
      if (name && names.get(name) !== 'code') names.set(name, kind);
    }
  }
  return names;
}

/**
 * A word that starts `name[` and whose brackets are still open where the placeholder stands: bash reads
 * `a[ x {i} ]=1` as one assignment word (spaces and all), and a subscript is arithmetic.
 */
function openSubscript(command: string): boolean {
  const start = /(^|[ \t\n])[A-Za-z_]\w*\[/g;
  for (let match = start.exec(command); match; match = start.exec(command)) {
    let depth = 0;
    for (let k = match.index + match[0].length - 1; k < command.length; k++) {
      if (command[k] === '[') depth += 1;
      else if (command[k] === ']') depth -= 1;
      if (depth === 0) break;
    }
    if (depth > 0) return true;
  }
  return false;
}

/** The word as bash sees it after quote removal: `\eval`, `e'v'al` and `$'eval'` are all `eval`. */
function unquote(word: string): string {
  return word
    .replace(/\$(?=["'])/g, '')
    .replace(/\\(.)/g, '$1')
    .replace(/["']/g, '')
    .replace(/^\$/, '');
}
