import { PREFIXES, prefixOptionWords } from './bash-words.js';

/**
 * Whether a placeholder stands where its command may read the value as an option. Quoting keeps a value one
 * word, but a word `--version` in an operand position is still an option to most programs (GNU getopt even
 * permutes, so `ls {path} -l` reads options after operands too). The compiler records such placeholders and
 * the run refuses a string value starting with `-` there (see `optionProblem`).
 *
 * Operand-safe, because the value cannot start an argv word the command parses as options:
 * - glued to literal text at the start of its word: `--name={x}`, `./{x}`, `x{x}`, `"a {x}"`, `TZ={v} cmd`;
 * - after a literal `--` word among the command's arguments (not for find, test and [, which ignore it);
 * - the argument of a find primary that takes one (`-name {x}`, `-newer {x}`, `-fprintf {file} {format}`);
 * - a redirection target (`> {path}`, `<<< {s}`) or a here-document body (never an argument at all);
 * - an argument of `[[ … ]]`, `case`, `for`/`select` (syntax, parsed before expansion) or `printf` (it reads
 *   options only before its format, and the compiler already refuses a placeholder there).
 * Everything else is option-exposed: the bash builtin `echo` under the narrow rule 'echo' (it reads only words
 * made of -n/-e/-E as options and prints any other value as is), every other command under 'dash'.
 */
export type OptionRule = 'dash' | 'echo';

export interface OptionExposure {
  /** The command that would read the value, for the message. */
  command: string;
  /** How a leading '-' is read there; absent where only expression operators matter (`expr -- {x}`). */
  rule?: OptionRule;
  /**
   * Words the command reads as operators of its expression there: `find {dir} -delete` with dir `!` negates the
   * test, so it deletes everything else. A literal `--` does not change that.
   */
  operators?: readonly string[];
  /**
   * The value stands where the command can read it as a file to send (`curl -d @file`, `curl -T FILE`): every way
   * it can there (a value used in two places is checked against both).
   */
  fileReferences?: readonly FileReference[];
}

export interface FileReference {
  /** The option, for the message (`curl -d`). */
  option: string;
  /** Which values name a file there (see bash-file-references.ts). */
  reads: (value: string) => boolean;
  /** What the author writes instead to send the text as is (or, for `named`, what to do instead). */
  instead: string;
  /** What curl reads a file there as, for the message; default `a file to send`. */
  file?: string;
  /** Every value is a file's name (`-T FILE`, `-K FILE`): no text can stand there, so every value is refused. */
  named?: true;
}

const TEST_OPERATORS = ['!', '(', ')', ','];
/** GNU expr's operators and keywords (`expr --help`). */
const EXPR_OPERATORS = [
  ...['|', '&', '<', '<=', '=', '==', '!=', '>=', '>', '+', '-', '*', '/', '%', ':', '(', ')'],
  ...['match', 'substr', 'index', 'length'],
];
export const EXPRESSION_OPERATORS: Readonly<Record<string, readonly string[]>> = {
  find: TEST_OPERATORS,
  test: TEST_OPERATORS,
  '[': TEST_OPERATORS,
  expr: EXPR_OPERATORS,
};

/** The exposure that covers both: a placeholder used in two places must be safe in each. */
export function mergeExposure(a: OptionExposure | undefined, b: OptionExposure): OptionExposure {
  if (!a) return b;
  const rank = (e: OptionExposure) => (e.rule === 'dash' ? 2 : e.rule === 'echo' ? 1 : 0);
  const first = rank(b) > rank(a) ? b : a;
  const operators = [...new Set([...(a.operators ?? []), ...(b.operators ?? [])])];
  const fileReferences = [...(a.fileReferences ?? []), ...(b.fileReferences ?? [])];
  return {
    ...(fileReferences.length > 0 ? { fileReferences } : {}),
    command: first.rule ? first.command : (a.operators ? a : b).command,
    ...(first.rule ? { rule: first.rule } : {}),
    ...(operators.length > 0 ? { operators } : {}),
  };
}

const OPERAND_ONLY = new Set(['[[', 'case', 'for', 'select', 'printf']);
/** Prefixes that run the next word as an external program, so `echo` there is /bin/echo (it knows --help). */
const EXTERNAL = new Set(['env', 'exec', 'nohup', 'sudo']);
const ECHO_OPTION = /^-[neE]+$/;
/**
 * Commands for which a `--` word does not make later words operands: find reads `find -- -delete` as its
 * expression (and deletes), test and [ treat `--` as a string.
 */
export const NO_END_OF_OPTIONS = new Set(['find', 'test', '[']);
const ASSIGNMENT = /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/;

/**
 * GNU find's tests and actions that take one argument: find reads the next word as that argument whatever it starts
 * with (`find . -name -delete` looks for files named "-delete"). `-exec`, `-ok` and their kin take words up to `;`
 * and are not here.
 */
const FIND_ONE_ARGUMENT = new Set([
  ...['-amin', '-anewer', '-atime', '-cmin', '-cnewer', '-ctime', '-fstype', '-gid', '-group', '-ilname'],
  ...['-iname', '-inum', '-ipath', '-iregex', '-iwholename', '-links', '-lname', '-mmin', '-mtime', '-name'],
  ...['-newer', '-path', '-perm', '-regex', '-samefile', '-size', '-type', '-uid', '-used', '-user'],
  ...['-wholename', '-xtype', '-context', '-fprint', '-fprint0', '-fls', '-printf', '-maxdepth', '-mindepth'],
  ...['-regextype', '-files0-from', '-fprintf'],
]);
/** `-newerXY` (`-newermt DATE`), one argument too. */
const FIND_NEWER_XY = /^-newer[aBcmt][aBcmt]$/;

/** Whether the placeholder (the word after `tokens`, the command's name at `k`) is the argument of a find primary. */
function isFindPrimaryArgument(tokens: readonly Token[], k: number): boolean {
  const before = tokens.length > k + 1 ? tokens.at(-1) : undefined;
  if (before && !before.op && (FIND_ONE_ARGUMENT.has(before.text) || FIND_NEWER_XY.test(before.text)))
    return true;
  // `-fprintf FILE FORMAT`: both words are its arguments.
  const two = tokens.length > k + 2 ? tokens.at(-2) : undefined;
  return two !== undefined && !two.op && two.text === '-fprintf' && tokens.at(-1)?.op === false;
}

export interface Token {
  /** A redirection operator (`>`, `2>>`, `<<<`, `&>`, …): the next word is its target. */
  op: boolean;
  /** The word after quote removal; placeholders are \u0001, other expansions \u0002. */
  text: string;
}

/**
 * `command` is the source of the current simple command up to the placeholder (see bash-command.ts). Returns
 * how the placeholder is exposed to option parsing, or undefined when it is operand-safe.
 */
export function optionExposure(command: string): OptionExposure | undefined {
  const { tokens, partial } = tokenize(command.replace(/\\\n/g, ''));
  // Any literal character before the placeholder in its word means the value does not start the word.
  if (/[^\u0001\u0002]/.test(partial)) return undefined;
  if (tokens.at(-1)?.op) return undefined;

  let k = 0;
  let external = false;
  let prefix: string | undefined; // the prefix command whose options come next
  while (k < tokens.length) {
    const token = tokens[k]!;
    if (token.op) k += 2;
    else if (prefix !== undefined && token.text === '--') {
      prefix = undefined; // the end of the prefix's options: the command follows
      k += 1;
    } else if (prefix !== undefined && token.text.startsWith('-')) {
      k += prefixOptionWords(prefix, token.text);
    } else if (PREFIXES.has(token.text)) {
      external ||= EXTERNAL.has(token.text);
      prefix = token.text;
      k += 1;
    } else {
      prefix = undefined;
      if (ASSIGNMENT.test(token.text)) k += 1;
      else if (token.text === 'function') k += 2;
      else if (k > 0 && tokens[k - 1]!.text === 'coproc' && tokens[k + 1]?.text === '{') k += 1;
      else break;
    }
  }
  const name = tokens[k]?.text;
  // No command name yet: the placeholder is a name or prefix word, which bash-command.ts refuses.
  if (name === undefined || OPERAND_ONLY.has(name)) return undefined;

  if (name === 'find' && isFindPrimaryArgument(tokens, k)) return undefined;
  const echo = name === 'echo' && !external;
  const operators = EXPRESSION_OPERATORS[name];
  const reader = /[\u0001\u0002]/.test(name) ? 'the command' : name;
  for (let j = k + 1; j < tokens.length; j++) {
    const token = tokens[j]!;
    if (token.op) j += 1;
    else if (token.text === '--' && !NO_END_OF_OPTIONS.has(name))
      return operators ? { command: reader, operators } : undefined;
    // echo stops reading options at its first literal word that is not one.
    else if (echo && !/[\u0001\u0002]/.test(token.text) && !ECHO_OPTION.test(token.text)) return undefined;
  }
  return { command: reader, rule: echo ? 'echo' : 'dash', ...(operators ? { operators } : {}) };
}

/**
 * Why `value` may not stand in a placeholder with this exposure, or undefined. `property` is the argument's
 * JSON Schema: a value its author listed (`enum`, `const`, `default`) is an option by their choice, not the model's.
 */
export function optionProblem(
  name: string,
  value: unknown,
  exposure: OptionExposure,
  property?: { enum?: unknown; const?: unknown; default?: unknown },
): string | undefined {
  // A number is what the schema asked for: `head -n {n}` with -5 means -5.
  if (typeof value !== 'string') return undefined;
  if (property?.const === value || property?.default === value) return undefined;
  if (Array.isArray(property?.enum) && property.enum.includes(value)) return undefined;
  const short = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  const shown = JSON.stringify(short);
  const reference = exposure.fileReferences?.find((r) => r.reads(value));
  if (reference) {
    if (reference.named)
      return `argument "${name}" is ${shown}: after ${reference.option} curl would read the file it names (${reference.file}); a value may not name a file for curl to read, so nothing was run (${reference.instead})`;
    return `argument "${name}" is ${shown}: after ${reference.option} curl would read it as ${reference.file ?? 'a file to send'}, not as the text itself; nothing was run (a template sends such text as is with ${reference.instead})`;
  }
  if (exposure.operators?.includes(value)) {
    return `argument "${name}" is ${shown}, which ${exposure.command} would read as an operator of its expression, not as data; nothing was run. If it names a file, pass it as ${JSON.stringify(`./${short}`)}`;
  }
  if (!value.startsWith('-') || !exposure.rule) return undefined;
  if (exposure.rule === 'echo') {
    if (!ECHO_OPTION.test(value)) return undefined;
    return `argument "${name}" is ${shown}, which echo would take as an option and not print, so nothing was run; send the text with something around it (e.g. a trailing newline)`;
  }
  return `argument "${name}" is ${shown}, which starts with "-", so ${exposure.command} would read it as an option; nothing was run. If it names a file, pass it as ${JSON.stringify(`./${short}`)} (a template can accept such values by ${NO_END_OF_OPTIONS.has(exposure.command) ? 'writing ./' : 'putting -- before '}{${name}})`;
}

/**
 * Splits the command source into words and redirection operators, after quote removal. The last, unfinished
 * word is returned as `partial`; whitespace at the end makes it empty.
 */
export function tokenize(source: string): { tokens: Token[]; partial: string } {
  const tokens: Token[] = [];
  let word = '';
  let started = false;
  const end = () => {
    if (started) tokens.push({ op: false, text: word });
    word = '';
    started = false;
  };
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    const next = source[i + 1] ?? '';
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      end();
      i += 1;
    } else if (ch === '<' || ch === '>' || (ch === '&' && next === '>')) {
      // `2>` and `2>>`: a word of digits right before the operator is its file descriptor.
      if (started && !/^\d+$/.test(word)) end();
      word = '';
      started = false;
      const op = /^(&>>?|<<<|<<-?|<>|<&|>>|>&|>\||<|>)/.exec(source.slice(i))![0];
      tokens.push({ op: true, text: op });
      i += op.length;
    } else {
      started = true;
      const [text, length] = wordPart(source, i);
      word += text;
      i += length;
    }
  }
  return { tokens, partial: word };
}

/** One piece of a word at `i`: its text after quote removal and the source length it spans. */
function wordPart(source: string, i: number): [string, number] {
  const ch = source[i]!;
  const next = source[i + 1] ?? '';
  if (ch === '\\') return [next, 2];
  if (ch === "'") return quoted(source, i + 1, "'", false, 1);
  if (ch === '$' && next === "'") return quoted(source, i + 2, "'", true, 2);
  if (ch === '"') return quoted(source, i + 1, '"', true, 1);
  if (ch === '$' && next === '"') return quoted(source, i + 2, '"', true, 2);
  const expansion = expansionLength(source, i);
  if (expansion > 0) return ['\u0002', expansion];
  // `{,}{x}` and `{-,}{x}` brace-expand into words that start with the value
  const brace = ch === '{' ? /^\{[^\s{}'"]*(,|\.\.)[^\s{}'"]*\}/.exec(source.slice(i)) : null;
  if (brace) return ['\u0002', brace[0].length];
  return [ch, 1];
}

/** A quoted span up to `close`; expansions inside "…" count as expansions, everything else as literal text. */
function quoted(
  source: string,
  from: number,
  close: string,
  escapes: boolean,
  open: number,
): [string, number] {
  let text = '';
  let k = from;
  while (k < source.length && source[k] !== close) {
    if (escapes && source[k] === '\\') {
      text += source[k + 1] ?? '';
      k += 2;
      continue;
    }
    const expansion = close === '"' ? expansionLength(source, k) : 0;
    if (expansion > 0) {
      text += '\u0002';
      k += expansion;
    } else {
      text += source[k];
      k += 1;
    }
  }
  return [text, k + 1 - from + open];
}

/** Length of a `$name`, `${…}`, `$(…)` or backtick expansion at `i`, or 0. */
function expansionLength(source: string, i: number): number {
  const ch = source[i];
  const next = source[i + 1] ?? '';
  if (ch === '`') {
    const close = source.indexOf('`', i + 1);
    return close === -1 ? source.length - i : close + 1 - i;
  }
  if (ch !== '$') return 0;
  if (next === '(' || next === '{') {
    const [open, shut] = next === '(' ? ['(', ')'] : ['{', '}'];
    let depth = 0;
    for (let k = i + 1; k < source.length; k++) {
      if (source[k] === open) depth += 1;
      else if (source[k] === shut && --depth === 0) return k + 1 - i;
    }
    return source.length - i;
  }
  const name = /^\$([A-Za-z_]\w*|[0-9@*#?$!-])/.exec(source.slice(i));
  return name ? name[0].length : 0;
}
