import { type Atom, atomsOf, balanced } from './bash-atoms.js';
import type { Flow } from './bash-flow.js';
import { SHELLS } from './bash-shells.js';
import {
  ENV_SETTING,
  hasExpansion,
  literalText,
  PREFIXES,
  prefixOptionWords,
  splitWords,
  type Word,
} from './bash-words.js';

/** One simple command as the template scanner collected it. */
export interface CommandSource {
  /** Source text; placeholders as \u0001, command substitution bodies as \u0004. */
  text: string;
  /** What each \u0001 mark stands for, in order. */
  marks: readonly Atom[];
  /** Atoms of the bodies replaced by \u0004, in order. */
  outputs: readonly Atom[][];
  /** Template offset of every character of `text`. */
  offsets: readonly number[];
}

/** A place inside a simple command where bash evaluates text. */
export interface Region {
  /** 'source': a file runs in the template's own shell, where `$1`… hold the values: nothing can be followed. */
  kind: 'arithmetic' | 'code' | 'source';
  atoms: Atom[];
  /** Template offset of the word. */
  offset: number;
  /** What evaluates it, for the message: `let`, `a[…]=`, `trap`, … */
  where: string;
  /** Literal code (`eval 'echo "$x"'`): scanned like the template itself instead of refused as a whole. */
  code?: string;
}

const DECLARING = new Set(['declare', 'typeset', 'local', 'readonly', 'export']);
/** Builtins that assign to variables named by their arguments, from their input. */
const READING = new Set(['read', 'mapfile', 'readarray', 'getopts']);
/** Builtins whose name arguments may carry a subscript (arithmetic for indexed arrays). */
const NAMING = new Set(['unset', 'read', 'mapfile', 'readarray', 'getopts', 'wait', ...DECLARING]);
const ASSIGNMENT = /^([A-Za-z_]\w*)(\[.*?\])?(\+?=)/s;
const NAME_WITH_SUBSCRIPT = /^([A-Za-z_]\w*)(\[(.*)\])?$/s;

interface Parsed {
  /** Assignment words before the command name (`X=1 cmd`), or a bare assignment statement. */
  assignments: Word[];
  /** The assignments are in the environment of what runs: a command follows them, or `env`/`sudo` takes them. */
  exported: boolean;
  name?: Word;
  /** Arguments after the name, redirections and their targets left out. */
  args: Word[];
  /** Every word, redirection targets included. */
  words: Word[];
}

function parse(text: string): Parsed {
  const words = splitWords(text);
  const assignments: Word[] = [];
  const args: Word[] = [];
  let name: Word | undefined;
  let prefix: string | undefined;
  let envPrefix = false;
  for (let k = 0; k < words.length; k++) {
    const word = words[k]!;
    if (word.op) {
      k += 1; // the target
      continue;
    }
    if (name) {
      args.push(word);
      continue;
    }
    const literal = literalText(word.raw);
    if (PREFIXES.has(literal)) {
      prefix = literal;
      envPrefix ||= ENV_SETTING.has(literal);
    } else if (prefix !== undefined && literal.startsWith('-')) {
      k += prefixOptionWords(prefix, literal) - 1; // a prefix's own option (`env -i`, `env -C dir`, `sudo -u bob`)
    } else if (ASSIGNMENT.test(word.raw) || (envPrefix && ASSIGNMENT.test(literal))) {
      assignments.push(word);
      prefix = undefined; // a prefix reads its options before any NAME=value
    } else if (literal === 'function') k += 1;
    else name = word;
  }
  return { assignments, exported: envPrefix || name !== undefined, args, words, ...(name ? { name } : {}) };
}

const atomsIn = (source: CommandSource, word: Word, from = 0, to = word.raw.length) => {
  // the marks and outputs consumed by earlier words come first
  const before = source.text.slice(0, word.start + from);
  const marks = source.marks.slice(count(before, '\u0001'));
  const outputs = source.outputs.slice(count(before, '\u0004'));
  return atomsOf(word.raw.slice(from, to), marks, outputs);
};

function count(text: string, ch: string): number {
  let n = 0;
  for (const c of text) if (c === ch) n += 1;
  return n;
}

/**
 * Records what one simple command assigns (the first pass over a template). Returns the literal code of an `eval`
 * or `trap` and where it stands, which the caller scans the same way.
 */
export function recordAssignments(
  source: CommandSource,
  flow: Flow,
): { text: string; offset: number } | undefined {
  const { assignments, exported, name, args, words } = parse(source.text);
  const site = (word: Word, exported = false) => ({ offset: offsetOf(source, word), exported });
  for (const word of assignments) assignWord(source, word, flow, exported);
  // `${y:=$x}` and `${y=$x}` assign wherever they stand; `${!y:=$x}` the variable y names
  for (const word of words) {
    for (const match of word.raw.matchAll(/\$\{(!?)([A-Za-z_]\w*)(\[[^\]]*\])?:?=/g)) {
      const open = match.index! + 1;
      const close = balanced(word.raw, open, '{', '}');
      const value = atomsIn(source, word, open + match[0].length - 1, close);
      if (match[1]) flow.assignIndirect(value, site(word));
      else flow.assign(match[2]!, value, site(word));
    }
  }
  if (!name) return undefined;
  if (hasExpansion(name.raw)) {
    // `$cmd n` may be `read n`: a word that could name a variable may be assigned anything
    for (const word of args) {
      const target = NAME_WITH_SUBSCRIPT.exec(literalText(word.raw))?.[1];
      if (target && !hasExpansion(word.raw)) flow.assignFromInput(target, site(word));
    }
    return undefined;
  }
  const command = literalText(name.raw);
  const literal = args.map((w) => literalText(w.raw));
  if (command === 'for' || command === 'select') {
    const variable = literal[0] ?? '';
    if (literal[1] === 'in') {
      flow.assign(
        variable,
        args.slice(2).flatMap((w) => atomsIn(source, w)),
        site(args[0]!),
      );
    } else flow.assignFromInput(variable, args[0] && site(args[0])); // `for x; do` walks the positional parameters
  } else if (DECLARING.has(command)) {
    const flags = literal.filter((w) => /^[-+]/.test(w)).join('');
    if (/n/.test(flags) && command !== 'export') flow.dynamic = true;
    const exports = command === 'export' || /x/.test(flags);
    const nameref = /n/.test(flags) && command !== 'export';
    for (const word of args) {
      const text = literalText(word.raw);
      if (/^[-+]/.test(text)) continue;
      if (nameref) {
        const [, name, target] = /^([A-Za-z_]\w*)(?:=([A-Za-z_]\w*))?$/.exec(text) ?? [];
        if (name) flow.namerefs.set(name, target ?? null);
      }
      const quotedName = !ASSIGNMENT.test(word.raw) && hasExpansion(word.raw.slice(0, word.raw.indexOf('=')));
      if (ASSIGNMENT.test(text) && !quotedName) assignWord(source, word, flow, exports);
      else if (hasExpansion(word.raw))
        flow.dynamic = true; // `declare "$x=1"` names the variable at run time
      else if (exports) flow.exported.add(NAME_WITH_SUBSCRIPT.exec(text)?.[1] ?? text);
    }
  } else if (READING.has(command)) {
    for (const word of args) {
      if (hasExpansion(word.raw)) flow.dynamic = true;
      const target = NAME_WITH_SUBSCRIPT.exec(literalText(word.raw))?.[1];
      if (target) flow.assignFromInput(target, site(word));
    }
  } else if (command === 'printf' || command === 'wait') {
    const option = command === 'printf' ? '-v' : '-p';
    for (let k = 0; k < args.length; k++) {
      const text = literal[k]!;
      const glued = text.startsWith(option) && text.length > 2 ? args[k] : undefined;
      const target = glued ?? (text === option ? args[k + 1] : undefined);
      if (!target) continue;
      if (hasExpansion(target.raw)) flow.dynamic = true;
      const named = NAME_WITH_SUBSCRIPT.exec(literalText(target.raw).slice(glued ? 2 : 0))?.[1];
      if (named) flow.assignFromInput(named, site(target));
    }
  } else if (runsCode(command)) {
    // code that runs here or later: literal code is scanned like the template; other code may assign anything
    const code = codeOf(command, args);
    if (code) return { text: code.text, offset: offsetOf(source, code.word) };
    if (!SHELLS.has(command)) flow.dynamic = true; // a child shell cannot assign ours
  } else if (command === 'source' || command === '.') {
    flow.dynamic = true; // the sourced file may assign anything
  } else if (command === 'set' && exportsAll(literal)) {
    flow.allExport = true;
  }
  return undefined;
}

/** `set -a`, `set -ae`, `set -o allexport`: every variable assigned afterwards is exported. */
function exportsAll(args: readonly string[]): boolean {
  return args.some((arg, k) => /^-[A-Za-z]*a/.test(arg) || (arg === '-o' && args[k + 1] === 'allexport'));
}

const offsetOf = (source: CommandSource, word: Word) =>
  source.offsets[word.start] ?? source.offsets.at(-1) ?? 0;

/** The words that are code: all of `eval`'s, `trap`'s first, the one after a shell's `-c`. */
function codeWords(command: string, args: readonly Word[]): readonly Word[] {
  if (command === 'trap') return args.filter((w) => !literalText(w.raw).startsWith('-')).slice(0, 1);
  if (SHELLS.has(command)) {
    const flag = args.findIndex((w) => /^-[A-Za-z]*c[A-Za-z]*$/.test(literalText(w.raw)));
    return flag === -1 ? [] : args.slice(flag + 1, flag + 2);
  }
  return args;
}

/** Whether the command runs code given as its arguments (`eval`, `trap`, `bash -c`). */
export function runsCode(command: string): boolean {
  return command === 'eval' || command === 'trap' || SHELLS.has(command);
}

/**
 * The code `eval` runs (its arguments joined by spaces), `trap` installs (its first argument) or a shell runs after
 * `-c`, when it is literal text the template wrote; undefined when it expands anything at run time.
 */
function codeOf(command: string, args: readonly Word[]): { text: string; word: Word } | undefined {
  const words = codeWords(command, args);
  if (words.length === 0 || words.some((w) => hasExpansion(w.raw))) return undefined;
  return { text: words.map((w) => literalText(w.raw)).join(' '), word: words[0]! };
}

function assignWord(source: CommandSource, word: Word, flow: Flow, exported: boolean): void {
  const plain = ASSIGNMENT.exec(word.raw);
  const name = (plain ?? ASSIGNMENT.exec(literalText(word.raw))!)[1]!;
  // a quoted assignment (`export "PATH={v}"`, `env "PATH={v}"`): the value is all that follows the first '='
  const valueStart = plain ? plain[0].length : word.raw.indexOf('=') + 1;
  flow.assign(name, atomsIn(source, word, valueStart), { offset: offsetOf(source, word), exported });
  const value = word.raw.slice(valueStart);
  flow.assignWord(name, hasExpansion(value) ? undefined : literalText(value));
}

/**
 * The places in a simple command where bash evaluates text as arithmetic or code (the second pass): subscripts of
 * assignments and name arguments, values assigned to integer variables, `let`, and the code of `eval` and `trap`.
 */
export function evaluatedRegions(source: CommandSource, integerNames: ReadonlySet<string>): Region[] {
  const { assignments, name, args } = parse(source.text);
  const regions: Region[] = [];
  const at = (word: Word) => offsetOf(source, word);
  const assignment = (word: Word, declareFlags = '') => {
    const match = ASSIGNMENT.exec(word.raw);
    if (!match) return; // `env "NAME=…"`: text for env, not an assignment bash evaluates
    if (match[2]) {
      const open = match[1]!.length;
      const close = balanced(word.raw, open, '[', ']');
      regions.push({
        kind: 'arithmetic',
        atoms: atomsIn(source, word, open + 1, close),
        offset: at(word),
        where: `${match[1]}[…]=`,
      });
    }
    const value = word.raw.slice(match[0].length);
    if (integerNames.has(match[1]!) || /i/.test(declareFlags)) {
      regions.push({
        kind: 'arithmetic',
        atoms: atomsIn(source, word, match[0].length),
        offset: at(word),
        where: `the integer variable ${match[1]}`,
      });
    }
    if (value.startsWith('(')) {
      // a compound assignment: `[sub]=value` elements have arithmetic subscripts
      const body = value.slice(1, balanced(value, 0, '(', ')'));
      const base = match[0].length + 1;
      for (const element of splitWords(body)) {
        if (!element.raw.startsWith('[')) continue;
        const close = balanced(element.raw, 0, '[', ']');
        regions.push({
          kind: 'arithmetic',
          atoms: atomsIn(source, word, base + element.start + 1, base + element.start + close),
          offset: at(word),
          where: `${match[1]}=( [ … ]= )`,
        });
      }
    }
  };
  for (const word of assignments) assignment(word);
  if (!name || hasExpansion(name.raw)) return regions;
  const command = literalText(name.raw);
  if (command === 'let') {
    for (const word of args)
      regions.push({ kind: 'arithmetic', atoms: atomsIn(source, word), offset: at(word), where: 'let' });
  } else if (runsCode(command)) {
    const code = codeOf(command, args);
    const where = SHELLS.has(command) ? `${command} -c` : command;
    if (code) regions.push({ kind: 'code', atoms: [], offset: at(code.word), where, code: code.text });
    else {
      for (const word of codeWords(command, args))
        regions.push({ kind: 'code', atoms: atomsIn(source, word), offset: at(word), where });
    }
  } else if (command === 'source' || command === '.') {
    regions.push({ kind: 'source', atoms: [], offset: at(name), where: command });
  }
  if (DECLARING.has(command)) {
    const flags = args
      .map((w) => literalText(w.raw))
      .filter((w) => /^[-+]/.test(w))
      .join('');
    for (const word of args) if (ASSIGNMENT.test(word.raw)) assignment(word, flags);
  }
  // `unset 'a[i]'`, `read 'a[i]'`, `printf -v 'a[i]'`, `test -v 'a[i]'`: the subscript of a name is arithmetic
  const option = command === 'printf' ? '-v' : command === 'wait' ? '-p' : '-v';
  const names =
    NAMING.has(command) && command !== 'wait'
      ? args
      : args.filter(
          (_, k) =>
            literalText(args[k - 1]?.raw ?? '') === option || literalText(args[k]!.raw).startsWith(option),
        );
  if (NAMING.has(command) || command === 'printf' || command === 'test' || command === '[') {
    for (const word of names) {
      const literal = literalText(word.raw);
      const named = /^(?:-[A-Za-z])?([A-Za-z_]\w*)\[/.exec(literal);
      if (!named || ASSIGNMENT.test(word.raw)) continue;
      const open = word.raw.indexOf('[');
      const close = balanced(word.raw, open, '[', ']');
      regions.push({
        kind: 'arithmetic',
        atoms: atomsIn(source, word, open + 1, close),
        offset: at(word),
        where: `${command} ${named[1]}[…]`,
      });
    }
  }
  return regions;
}
