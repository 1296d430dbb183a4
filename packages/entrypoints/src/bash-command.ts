import { shellNamed, shellProblem } from './bash-shells.js';
import { ENV_SETTING, PREFIXES, prefixOptionWords } from './bash-words.js';

/**
 * Which command a placeholder is an argument of. Quoting keeps a value one word, but some bash builtins
 * evaluate their arguments as code or as variable names (whose array subscripts are arithmetic, and
 * arithmetic runs `$( … )`): a value there would run. Those positions are refused, as is the command name
 * itself, which would let the model choose the program (that is what the raw `{command}` template is for).
 */

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
  /** Whether the unfinished word is an assignment to bash (`X=…`, not `"X=…"`) or to env/sudo (quoted or not). */
  assigning: boolean;
}

/** `command`'s options that make it look a name up instead of running it (`-v`, `-V`, bundled with `-p`). */
const LOOKUP_ONLY = /^-p*[vV][pvV]*$/;

function commandWords(command: string): CommandWords {
  // A line continuation vanishes before bash reads words: `ev\<newline>al` is `eval`.
  command = command.replace(/\\\n/g, '');
  const words = command.split(/[ \t\n]+/);
  const rawPartial = words.pop() ?? '';
  const partial = unquote(rawPartial);
  const raw = words.filter(Boolean);
  const complete = raw.map(unquote);

  // A quoted `"X=…"` is no assignment to bash (it is the command name), but env and sudo read it as one.
  let prefix: string | undefined;
  let envPrefix = false;
  const assignment = (k: number) =>
    ASSIGNMENT.test(k < raw.length ? raw[k]! : rawPartial) ||
    (envPrefix && ASSIGNMENT.test(k < raw.length ? complete[k]! : partial));
  let k = 0;
  let prefixAt = 0;
  while (k < complete.length) {
    const word = complete[k]!;
    if (PREFIXES.has(word)) {
      prefix = word;
      prefixAt = k;
      envPrefix ||= ENV_SETTING.has(word);
      k += 1;
    } else if (prefix === 'command' && LOOKUP_ONLY.test(word)) {
      // `command -v NAME` / `-V` only says what NAME is: `command` is the program and NAME its argument
      k = prefixAt;
      break;
    } else if (prefix !== undefined && word.startsWith('-')) {
      k += prefixOptionWords(prefix, word);
    } else if (assignment(k)) {
      prefix = undefined; // a prefix reads its options before any NAME=value
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
    assigning: assignment(raw.length),
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
  const { rest, partial, assigning } = commandWords(command);
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
    if (assigning || REDIRECT.test(partial)) return attributedProblem;
    return {
      message: `${ph} as (part of) the command name would let the argument choose the program; use the raw {command} template for that`,
    };
  }
  const first = rest[0]!;
  const shell = shellNamed(first);
  if (shell) {
    const problem = shellProblem(shell, command, ph);
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
