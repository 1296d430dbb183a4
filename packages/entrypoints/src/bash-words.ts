import { balanced } from './bash-atoms.js';

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

/**
 * Options of prefix commands that take the next word as their value (`sudo -u bob cat`, `env -C dir bash`: bob and
 * dir are no commands).
 */
const PREFIX_VALUE_OPTIONS: Readonly<Record<string, RegExp>> = {
  sudo: /^(-[CDghprTtUu]|--(user|group|chdir|host|prompt|role|type|close-from|other-user|command-timeout))$/,
  env: /^(-[CSu]|--(chdir|unset|split-string))$/,
  exec: /^-a$/,
};

/** Prefixes that read `NAME=value` words (quoted or not) into the environment of the command they start. */
export const ENV_SETTING: ReadonlySet<string> = new Set(['env', 'sudo']);

/** How many words an option of a prefix command takes up: 2 when the next word is its value, else 1. */
export function prefixOptionWords(prefix: string, option: string): number {
  return PREFIX_VALUE_OPTIONS[prefix]?.test(option) ? 2 : 1;
}

/** A word of a simple command's source, or a redirection operator. */
export interface Word {
  /** Source text, quotes included. */
  raw: string;
  /** Index of the word in the command text. */
  start: number;
  /** A redirection operator (`>`, `2>>`, `<<<`, `&>`, …): the next word is its target. */
  op: boolean;
}

const OPERATOR = /^(&>>?|<<<|<<-?|<>|<&|>>|>&|>\||<|>)/;

/**
 * Splits the source of one simple command (as the template scanner collected it: placeholders as \u0001, command
 * substitution bodies as \u0004) into words, keeping quotes, `${ … }`, `$( … )` and backticks inside their word.
 */
export function splitWords(source: string): Word[] {
  const words: Word[] = [];
  let start = -1;
  const end = (at: number) => {
    if (start !== -1) words.push({ raw: source.slice(start, at), start, op: false });
    start = -1;
  };
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      end(i);
      i += 1;
    } else if (ch === '<' || ch === '>' || (ch === '&' && source[i + 1] === '>')) {
      // `2>`: a word of digits right before the operator is its file descriptor
      if (start !== -1 && !/^\d+$/.test(source.slice(start, i))) end(i);
      const op = OPERATOR.exec(source.slice(i))![0];
      words.push({ raw: op, start: start === -1 ? i : start, op: true });
      start = -1;
      i += op.length;
    } else if (ch === '(' && start !== -1 && /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=$/.test(source.slice(start, i))) {
      i = balanced(source, i, '(', ')') + 1; // `x=( … )`: one word
    } else {
      if (start === -1) start = i;
      i = wordPartEnd(source, i);
    }
  }
  end(source.length);
  return words;
}

/** Index just after the word part that starts at `i`. */
function wordPartEnd(source: string, i: number): number {
  const ch = source[i]!;
  const next = source[i + 1] ?? '';
  if (ch === '\\') return i + 2;
  if (ch === "'") return closing(source, i + 1, "'", false);
  if (ch === '"') return closing(source, i + 1, '"', true);
  if (ch === '$' && next === "'") return closing(source, i + 2, "'", true);
  if (ch === '$' && next === '"') return closing(source, i + 2, '"', true);
  if (ch === '$' && next === '(') return balanced(source, i + 1, '(', ')') + 1;
  if (ch === '$' && next === '{') return balanced(source, i + 1, '{', '}') + 1;
  if (ch === '$' && next === '[') return balanced(source, i + 1, '[', ']') + 1;
  if (ch === '`') {
    const close = source.indexOf('`', i + 1);
    return close === -1 ? source.length : close + 1;
  }
  return i + 1;
}

function closing(source: string, from: number, quote: string, escapes: boolean): number {
  let k = from;
  while (k < source.length && source[k] !== quote) k += escapes && source[k] === '\\' ? 2 : 1;
  return k + 1;
}

/** The word after quote removal, with every expansion left as written: `"a b"` → `a b`, `\eval` → `eval`. */
export function literalText(raw: string): string {
  let out = '';
  let quote = ''; // the open quote: ', " or '' (none); $'…' counts as '
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i]!;
    if (quote === "'") {
      if (ch === "'") quote = '';
      else out += ch;
      i += 1;
    } else if (ch === '\\') {
      const next = raw[i + 1] ?? '';
      // inside "…" a backslash escapes only $ ` " \ and newline
      out += quote === '"' && !/[$`"\\\n]/.test(next) ? `\\${next}` : next;
      i += 2;
    } else if (ch === '"') {
      quote = quote === '"' ? '' : '"';
      i += 1;
    } else if (quote === '' && ch === "'") {
      quote = "'";
      i += 1;
    } else if (quote === '' && ch === '$' && (raw[i + 1] === "'" || raw[i + 1] === '"')) {
      i += 1;
    } else {
      out += ch;
      i += 1;
    }
  }
  return out;
}

/** Whether the word expands anything (a placeholder, a parameter, a command substitution) outside single quotes. */
export function hasExpansion(raw: string): boolean {
  let quote = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (quote === "'") {
      if (ch === "'") quote = '';
    } else if (ch === '\\') i += 1;
    else if (ch === '"') quote = quote === '"' ? '' : '"';
    else if (ch === "'" && quote === '') quote = "'";
    else if (ch === '\u0001' || ch === '\u0004' || ch === '`') return true;
    else if (ch === '$' && /[A-Za-z_{(@*#?$!0-9[-]/.test(raw[i + 1] ?? '')) return true;
  }
  return false;
}
