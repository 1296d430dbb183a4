import type { CommandSource } from './bash-command-flow.js';
import { analyseBashTemplate } from './bash-script.js';
import { splitWords } from './bash-words.js';

/**
 * Which simple commands a `bash:` template can run, as the scanner read them: a read-only view of the scanner's
 * first pass (literal `eval`/`trap`/`bash -c` code included), for the differential test against real bash and for
 * matching commands against rules. Each word is a sequence of literal text and expansions; an expansion may stand
 * for a value, a variable or a command's output.
 */
export interface SimpleCommand {
  /** Template offset where the command starts. */
  offset: number;
  /** The source text (placeholders as \u0001, command substitutions without values as \u0004). */
  text: string;
  /** `NAME=…` words before the command name (or the whole statement: `x={v}`). */
  assignments: ShapedWord[];
  /** The command name and its arguments; redirections and reserved words (`if`, `!`, `{` …) left out. */
  words: ShapedWord[];
}

export type WordPart =
  | { kind: 'literal'; text: string }
  /** `quoted`: inside "…" (stays within the word); unquoted expansions and globs may become any number of words. */
  | { kind: 'expansion'; quoted: boolean };

export type ShapedWord = WordPart[];

/** Reserved words that start a command without being its name. */
const LEADING = new Set(['!', '{', '(', 'if', 'then', 'else', 'elif', 'do', 'while', 'until', 'time']);
/** Reserved words that end a compound command (a redirection may follow: `done < f`). */
const CLOSING = new Set(['}', 'fi', 'done', 'esac']);
const ASSIGNMENT = /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/;
const COMPOUND = /^([A-Za-z_]\w*)\+?=\(/;

/** The simple commands of a template, in the order the scanner ends them (inner `$( … )` commands first). */
export function simpleCommands(template: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  for (const { source } of analyseBashTemplate(template).commands) {
    const command = shapeCommand(source);
    if (command) commands.push(command);
  }
  return commands;
}

function shapeCommand(source: CommandSource): SimpleCommand | undefined {
  const all = splitWords(source.text);
  const assignments: ShapedWord[] = [];
  const words: ShapedWord[] = [];
  for (let k = 0; k < all.length; k++) {
    const word = all[k]!;
    if (word.op) {
      k += 1; // the redirection's target
      continue;
    }
    if (words.length === 0 && (LEADING.has(word.raw) || CLOSING.has(word.raw))) continue;
    if (words.length === 0 && word.raw === 'function') {
      k += all[k + 2]?.raw === '{' ? 2 : 1; // `function NAME {`: the body's first command follows
      continue;
    }
    if (words.length === 0 && ASSIGNMENT.test(word.raw)) assignments.push(shapeWord(word.raw));
    else if (COMPOUND.test(word.raw)) {
      // `declare -a a=( … )`: bash assigns the array itself, and runs (and traces) `declare -a a`
      words.push([
        { kind: 'literal', text: COMPOUND.exec(word.raw)![1]! },
        { kind: 'expansion', quoted: false },
      ]);
    } else words.push(shapeWord(word.raw));
  }
  if (words.length === 0 && assignments.length === 0) return undefined;
  return { offset: source.offsets[0] ?? 0, text: source.text, assignments, words };
}

/** A word's literal parts after quote removal, and where expansions (or unquoted globs) stand. */
export function shapeWord(raw: string): ShapedWord {
  const parts: WordPart[] = [];
  const literal = (text: string) => {
    const last = parts.at(-1);
    if (last?.kind === 'literal') last.text += text;
    else parts.push({ kind: 'literal', text });
  };
  const expansion = (quoted: boolean) => parts.push({ kind: 'expansion', quoted });
  let quote = '';
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i]!;
    const next = raw[i + 1] ?? '';
    if (ch === '\u0001' || ch === '\u0004') {
      // a placeholder is always spelled "${birdie_N}" (inside '…' too: the quote is closed around it): one word
      expansion(ch === '\u0001' || quote === '"');
      i += 1;
    } else if (quote === "'") {
      if (ch === "'") quote = '';
      else literal(ch);
      i += 1;
    } else if (ch === '\\') {
      literal(quote === '"' && !/[$`"\\\n]/.test(next) ? `\\${next}` : next);
      i += 2;
    } else if (ch === '"') {
      quote = quote === '"' ? '' : '"';
      i += 1;
    } else if (quote === '' && ch === "'") {
      quote = "'";
      i += 1;
    } else if (quote === '' && ch === '$' && next === "'") {
      expansion(true); // $'…': escapes decoded by bash; one word
      i = closing(raw, i + 2, "'") + 1;
    } else if (ch === '$' && next === '"' && quote === '') {
      i += 1; // $"…" is "…"
    } else if (ch === '$' && /[({[]/.test(next)) {
      const end = balanced(raw, i + 1);
      // "${a[@]}", "${@:2}", "${!a[@]}", "${!prefix@}" are several words (or none) even within quotes
      const many = next === '{' && /^\{(@|!?\w+\[@\]|!\w+@)/.test(raw.slice(i + 1, end + 1));
      expansion(quote === '"' && !many);
      i = end + 1;
    } else if (ch === '$' && /[A-Za-z_]/.test(next)) {
      expansion(quote === '"');
      i += 1;
      while (/\w/.test(raw[i] ?? '')) i += 1;
    } else if (ch === '$' && /[0-9@*#?$!-]/.test(next)) {
      // "$@" and "$*" may still be several words (or none)
      expansion(quote === '"' && next !== '@');
      i += 2;
    } else if (ch === '`') {
      expansion(quote === '"');
      i = closing(raw, i + 1, '`') + 1;
    } else if (
      quote === '' &&
      (/[*?]/.test(ch) || (ch === '[' && raw.includes(']', i + 1)) || (ch === '~' && i === 0) || ch === '{')
    ) {
      expansion(false); // a glob, a tilde or a brace expansion: bash may turn it into other words
      i += 1;
    } else {
      literal(ch);
      i += 1;
    }
  }
  return parts;
}

function closing(raw: string, from: number, quote: string): number {
  let k = from;
  while (k < raw.length && raw[k] !== quote) k += raw[k] === '\\' ? 2 : 1;
  return k;
}

/** Index of the bracket that closes the one at `open`, quotes inside skipped. */
function balanced(raw: string, open: number): number {
  const pairs: Record<string, string> = { '(': ')', '{': '}', '[': ']' };
  const stack: string[] = [];
  for (let k = open; k < raw.length; k++) {
    const ch = raw[k]!;
    if (ch === '\\') k += 1;
    else if (ch === "'" && raw[open] !== '{') k = closing(raw, k + 1, "'");
    else if (pairs[ch]) stack.push(pairs[ch]);
    else if (ch === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return k;
    }
  }
  return raw.length;
}

/**
 * Whether `argv` (a command bash ran, after expansion) is one this command can produce: literal parts must match
 * exactly; a quoted expansion matches any text within its word, an unquoted one any text across words. A command
 * name that is not literal matches any program (the scanner checks such names separately).
 */
export function matchesCommand(command: SimpleCommand, argv: readonly string[]): boolean {
  const source = command.words
    .map((word) => {
      const body = word
        .map((part) =>
          part.kind === 'literal' ? regexText(part.text) : part.quoted ? '[^\\u0000]*' : '[^]*',
        )
        .join('');
      // a word made only of unquoted expansions may vanish (an empty $x, a glob over nothing is kept as itself)
      const vanishes = word.length > 0 && word.every((p) => p.kind === 'expansion' && !p.quoted);
      return vanishes ? `(?:\\u0000${body})?` : `\\u0000${body}`;
    })
    .join('');
  return new RegExp(`^${source}$`, 'u').test(argv.map((a) => `\u0000${a}`).join(''));
}

const regexText = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
