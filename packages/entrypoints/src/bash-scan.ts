// Scanner state and helpers of the bash template compiler (bash-script.ts).
import { type Atom, splitParameter } from './bash-atoms.js';

/**
 * Where a placeholder stands decides how the positional parameter is spelled. Contexts in which even a
 * quoted expansion is evaluated again (arithmetic, `${…}` subscripts) or cannot be expanded at all
 * (backticks, quoted here-documents) are refused at resolve time.
 */
export type Context =
  | 'unquoted' // top level, `$( … )`, `( … )`
  | 'test' // `[[ … ]]`
  | 'double' // "…" and $"…"
  | 'single' // '…'
  | 'ansi' // $'…'
  | 'backtick'
  | 'param' // ${…}
  | 'arith' // $(( … )), (( … ))
  | 'arith-bracket' // $[ … ]
  | 'heredoc'
  | 'heredoc-quoted'
  | 'comment';

export interface Frame {
  context: Context;
  /** Paren/brace depth inside the frame, to find its closing token. */
  depth: number;
  /** `$(`: closes on `)`; plain `(`-subshells are tracked through depth instead. */
  closesOnParen?: boolean;
  /** Here-document delimiter and whether leading tabs are stripped. */
  delimiter?: string;
  stripTabs?: boolean;
  /** `[[ … ]]`: source text, checked for arithmetic operators when the test closes. */
  text?: string;
  placeholders?: string[];
  /** Unquoted-like frames: source of the current simple command so far, to see what a placeholder feeds. */
  command?: string;
  /** Open `case … esac` statements: their patterns end in an unbalanced ')'. */
  cases?: number;
  /** Template offset of the character that opened the frame. */
  start?: number;
  /** Frames whose text is analysed when they close: everything inside, nested frames included. */
  raw?: string;
  /** The values (\u0001 in `raw`) met inside, in order. */
  rawMarks?: Atom[];
  /** Command frames: the template offset of each character of `command`. */
  commandOffsets?: number[];
  /** Command frames: what each \u0001 in `command` stands for, in order. */
  marks?: Atom[];
  /** Command frames: the bodies of the command substitutions shown as \u0004 in `command`. */
  outputs?: Atom[][];
  /** A process substitution `<( … )`/`>( … )`: its `<` or `>` belongs to the word, not a redirection. */
  process?: boolean;
  /** `$( … )`: length of the enclosing command's text before the `$(`. */
  outerLength?: number;
  /** `x=( … )`: a compound array assignment (its `[sub]=` words have arithmetic subscripts). */
  array?: boolean;
  /** Compound array assignment: bracket depth of the subscript being read, 0 outside one. */
  subscript?: number;
  /** A `${ … }` already counted as one value in its command: its text stays out of the command's source. */
  quiet?: boolean;
  /** Command frames: whether the current command holds a value (or command output) … */
  valueSeen?: boolean;
  /** … and whether an earlier stage of its pipeline did, so that what it reads may be a value. */
  pipeInput?: boolean;
  /** Here-documents: the source line that declared it (`cat <<EOF | bash`), to see who reads the body. */
  line?: string;
  /** Here-documents: the body is data (`dataHereDocument`), not lines of the template's own commands. */
  data?: boolean;
}

export type Item = string | { name: string; offset: number };

export const WORD_BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>', '']);

/** The innermost frame in which commands are parsed (top level, `$( … )`). */
export function commandOwner(stack: readonly Frame[]): Frame | undefined {
  for (let k = stack.length - 1; k >= 0; k--) if (stack[k]!.command !== undefined) return stack[k];
  return undefined;
}

/** Characters that end a simple command; `&` in `&>`, `>&`, `<&` is part of a redirection instead. */
export function isSeparator(text: string, prev: string, next: string): boolean {
  if (text === '&') return prev !== '>' && prev !== '<' && next !== '>';
  return text === ';' || text === '|' || text === '\n' || text === '(' || text === ')';
}

export function unquotedLike(context: Context): boolean {
  return context === 'unquoted' || context === 'test';
}

export function describe(context: Context): string {
  const names: Record<Context, string> = {
    unquoted: '$( … ) or ( … )',
    test: '[[ … ]]',
    double: '" quote',
    single: "' quote",
    ansi: "$' quote",
    backtick: '` quote',
    param: '$\u007B … }',
    arith: '(( … ))',
    'arith-bracket': '$[ … ]',
    heredoc: 'here-document',
    'heredoc-quoted': 'here-document',
    comment: 'comment',
  };
  return names[context];
}

export function lineEnd(items: readonly Item[], from: number): number {
  for (let k = from; k < items.length; k++) {
    const it = items[k]!;
    if (typeof it !== 'string') return -1;
    if (it === '\n') return k;
  }
  return items.length;
}

/** A backslash takes the next character with it; a backslash before a placeholder is ambiguous. */
export function backslash(items: readonly Item[], i: number, fail: (m: string) => never): number {
  const next = items[i + 1];
  if (next !== undefined && typeof next !== 'string') {
    fail(`a backslash right before {${next.name}} would escape the quoting of the value`);
  }
  return next === undefined ? 1 : 2;
}

export function dollar(items: readonly Item[], i: number, stack: Frame[], ctx: Context): number | undefined {
  const at = (k: number) => (typeof items[i + k] === 'string' ? (items[i + k] as string) : '');
  const inUnquoted = unquotedLike(ctx);
  if (at(1) === '(' && at(2) === '(') {
    stack.push({ context: 'arith', depth: 0 });
    return 3;
  }
  if (at(1) === '(') {
    stack.push({ context: 'unquoted', depth: 0, closesOnParen: true, command: '' });
    return 2;
  }
  if (at(1) === '[') {
    stack.push({ context: 'arith-bracket', depth: 0 });
    return 2;
  }
  if (at(1) === '{') {
    stack.push({ context: 'param', depth: 0 });
    return 2;
  }
  if (inUnquoted && at(1) === "'") {
    stack.push({ context: 'ansi', depth: 0 });
    return 2;
  }
  if (inUnquoted && at(1) === '"') {
    stack.push({ context: 'double', depth: 0 });
    return 2;
  }
  return undefined;
}

export function unquoted(
  items: readonly Item[],
  i: number,
  stack: Frame[],
  pending: Frame[],
  prev: string,
  fail: (m: string) => never,
): number {
  const at = (k: number) => (typeof items[i + k] === 'string' ? (items[i + k] as string) : '');
  const frame = stack[stack.length - 1]!;
  const item = at(0);
  const wordStart = WORD_BREAK.has(prev);
  if (item === "'") stack.push({ context: 'single', depth: 0 });
  else if (item === '"') stack.push({ context: 'double', depth: 0 });
  else if (item === '#' && wordStart) stack.push({ context: 'comment', depth: 0 });
  else if (item === '(' && at(1) === '(' && wordStart) {
    stack.push({ context: 'arith', depth: 0 });
    return 2;
  } else if (item === '[' && at(1) === '[' && wordStart && WORD_BREAK.has(at(2))) {
    stack.push({ context: 'test', depth: 0, text: '', placeholders: [] });
    return 2;
  } else if (frame.context === 'test' && item === ']' && at(1) === ']' && wordStart) {
    stack.pop(); // the caller checks what the test compared
    return 2;
  } else if (wordStart && atCommandStart(frame) && (peekWord(at, 'case') || peekWord(at, 'esac'))) {
    frame.cases = Math.max(0, (frame.cases ?? 0) + (item === 'c' ? 1 : -1));
    return 4;
  } else if (item === '(' && (prev === '<' || prev === '>') && frame.context === 'unquoted') {
    // `<( … )`, `>( … )`: a process substitution is one word of its command (a file name such as /dev/fd/63) and
    // holds commands of its own, like `$( … )`; read as a subshell it would end the command, and what follows would
    // pass for another command (`xargs -a <(…) sh -c {x}` as a command `sh -c …` that xargs never runs)
    stack.push({ context: 'unquoted', depth: 0, closesOnParen: true, command: '', process: true });
  } else if (item === '(') frame.depth += 1;
  else if (item === ')') {
    if (frame.depth > 0) frame.depth -= 1;
    else if (frame.cases) {
      // the end of a case pattern
    } else if (frame.closesOnParen) stack.pop();
    else fail("unbalanced ')'");
  } else if (item === '<' && at(1) === '<' && at(2) === '<') {
    return 3; // a here-string: its word is an ordinary word, not a here-document delimiter
  } else if (item === '<' && at(1) === '<') {
    return heredoc(items, i, pending, fail);
  }
  return 1;
}

/** Reserved words after which the next word is still in command position. */
const LEADING_RESERVED = new Set(['!', '{', 'if', 'then', 'else', 'elif', 'do', 'while', 'until', 'time']);

/**
 * `case`/`esac` are reserved words only where a command starts; as an argument (`echo case`) they are plain
 * words, and counting them would make the scanner take a later ')' for the end of a case pattern.
 */
function atCommandStart(frame: Frame): boolean {
  if (frame.command === undefined) return false;
  return frame.command
    .split(/[ \t\n]+/)
    .filter(Boolean)
    .every((word) => LEADING_RESERVED.has(word));
}

export function peekWord(at: (k: number) => string, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (at(k) !== word[k]) return false;
  return WORD_BREAK.has(at(word.length));
}

/** Reads `<<[-] word`; the body starts after the next unquoted newline. */
export function heredoc(
  items: readonly Item[],
  i: number,
  pending: Frame[],
  fail: (m: string) => never,
): number {
  let k = i + 2;
  const stripTabs = items[k] === '-';
  if (stripTabs) k += 1;
  while (items[k] === ' ' || items[k] === '\t') k += 1;
  let word = '';
  let quoted = false;
  while (k < items.length) {
    const it = items[k]!;
    if (typeof it !== 'string') fail(`{${it.name}} cannot be a here-document delimiter`);
    if (WORD_BREAK.has(it as string)) break;
    if (it === '"' || it === "'" || it === '\\') quoted = true;
    else word += it;
    k += 1;
  }
  if (!word) fail("'<<' without a here-document delimiter");
  pending.push({ context: quoted ? 'heredoc-quoted' : 'heredoc', depth: 0, delimiter: word, stripTabs });
  return k - i;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT = /[A-Za-z0-9_]/;
/** Special parameters that hold numbers or flags, never a value: `$#`, `$?`, `$$`, `$!`, `$-`, `$0`. */
const CLEAN_SPECIAL = /^[#?$!0-]$/;

/**
 * The parameter a `$` at `i` expands, when it may carry a value: `$name`, `$1`, `$@`, `$*`, or the name of a `${…}`
 * (`length` 0: the scanner opens the parameter frame; `${!x}` reads as `@`, any variable). Undefined for `${#x}`, the
 * special parameters that hold numbers, and anything that is no expansion.
 */
export function readExpansion(
  items: readonly Item[],
  i: number,
): { name: string; length: number; indirect: boolean } | undefined {
  const at = (k: number) => (typeof items[k] === 'string' ? (items[k] as string) : '');
  const next = at(i + 1);
  let name = '';
  let length = 0;
  let indirect = false;
  if (IDENT_START.test(next)) {
    let k = i + 1;
    while (IDENT.test(at(k))) k += 1;
    name = (items.slice(i + 1, k) as string[]).join('');
    length = k - i;
  } else if (/[0-9@*]/.test(next)) {
    name = next;
    length = 2;
  } else if (next === '{') {
    let body = '';
    for (let k = i + 2; k < items.length && body.length < 200; k++) {
      const item = at(k);
      if (item === '' || item === '}' || item === ':' || item === '[') break;
      body += item;
    }
    const { prefix, name: parameter } = splitParameter(body);
    if (prefix === '#' && parameter !== '') return undefined; // a length
    indirect = prefix === '!';
    name = indirect ? '@' : parameter;
  } else return undefined;
  if (name === '' || CLEAN_SPECIAL.test(name)) return undefined;
  return { name, length, indirect };
}

/**
 * Programs that only print what they read (or a count, a match, a transformation of it): a here-document one of them
 * reads, alone on its line, is data that ends up in the tool's output.
 */
const DATA_READERS = new Set([
  'cat',
  'head',
  'tail',
  'wc',
  'sort',
  'uniq',
  'grep',
  'jq',
  'tr',
  'cut',
  'base64',
  'nl',
  'rev',
  'fold',
  'column',
]);

/**
 * Whether the line that declared a here-document makes its body data: the line is one such program, its plain
 * arguments and the here-document, and nothing else (no pipe, redirection, expansion, list or group, where the body
 * could reach a shell, a file run later or a variable). Any other reader keeps the body checked as the template's
 * own commands, the cautious reading: `bash /dev/stdin`, `"$SHELL"`, `timeout 5 bash`, `cat <<EOF |` continued on
 * the next line, `cat <<EOF > run.sh`, `read x <<EOF`.
 */
export function dataHereDocument(line: string): boolean {
  const match = /^\s*([a-z0-9]+)((?:\s+[-\w.,=:/+%@]+)*)\s*<<-?\s*(?:'\w+'|"\w+"|\w+)\s*$/.exec(line);
  return match !== null && DATA_READERS.has(match[1]!);
}

/** Whether the body of a data here-document lies between the top of `stack` and `owner` (see `dataHereDocument`). */
export function inDataHereDocument(stack: readonly Frame[], owner: Frame): boolean {
  for (let k = stack.length - 1; k >= 0 && stack[k] !== owner; k--) {
    const frame = stack[k]!;
    if (frame.context.startsWith('heredoc') && frame.data === true) return true;
  }
  return false;
}
