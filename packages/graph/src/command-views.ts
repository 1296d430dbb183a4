import { COMMAND_RUNNERS, nestedCommandIndex, programEntry } from '@birdie/entrypoints';
import picomatch from 'picomatch';

/*
 * What a deny or ask rule sees of a simple command: every spelling that runs the same program with the same
 * arguments. `/usr/bin/git push` is `git push`; `git -C . --no-pager push` is `git push`; a runner's command
 * (`env A=1 git push`, `timeout 60 git push`, `nice -n 5 rm x`, `sudo -u x rm x`) is seen at every word it could
 * start at, and a runner's argument holding a command line (`sh -c 'git push'`, `ssh host 'rm x'`) is read loosely.
 * Seeing too much only makes a deny or ask rule apply more often; an allow rule never uses these views.
 */

const MAX_DEPTH = 4;

/** git's global options that take the next word as their value (`git -C dir push`). */
const GIT_VALUE_OPTIONS = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
  '--attr-source',
  '--list-cmds',
]);

function baseName(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash < 0 ? word : word.slice(slash + 1);
}

/**
 * `git [global options] SUBCOMMAND …` → `git SUBCOMMAND …`, and the aliases its `-c alias.NAME=VALUE` options define
 * (`git -c alias.p=push p` runs `git push`).
 */
function withoutGitGlobals(words: readonly string[]): { words: string[]; aliases: Map<string, string> } {
  const aliases = new Map<string, string>();
  let i = 1;
  while (i < words.length) {
    const word = words[i] as string;
    if (!word.startsWith('-') || word === '-') break;
    if (word === '-c') {
      // Config keys are case-insensitive: `-c Alias.P=push` defines `p`... and git's alias names are too.
      const alias = /^alias\.([^=]+)=(.*)$/is.exec(words[i + 1] ?? '');
      if (alias) aliases.set((alias[1] as string).toLowerCase(), alias[2] as string);
    }
    i += GIT_VALUE_OPTIONS.has(word) ? 2 : 1;
  }
  return { words: ['git', ...words.slice(i)], aliases };
}

/**
 * What `git ALIAS ARGS…` runs for an alias defined on its command line: `VALUE ARGS…` as git's own words, or, for a
 * `!` alias, the shell command `VALUE ARGS…`, read loosely.
 */
function aliasRuns(aliases: ReadonlyMap<string, string>, name: string, args: readonly string[]): string[][] {
  let value = aliases.get(name);
  let rest = [...args];
  // An alias may name another (`-c alias.a=b -c alias.b=push a`); git's own quotes are not part of the words.
  for (let hop = 0; value !== undefined && hop < 8; hop++) {
    if (value.startsWith('!')) return looseCommands([value.slice(1), ...rest].join(' '));
    const words = value
      .replace(/["'\\]/g, '')
      .split(/[ \t]+/)
      .filter((w) => w !== '');
    const next = aliases.get((words[0] ?? '').toLowerCase());
    if (next === undefined) return [['git', ...words, ...rest]];
    rest = [...words.slice(1), ...rest];
    value = next;
  }
  return [];
}

/** Characters that end a command in a loose reading (operators, groups, substitutions, redirections). */
const LOOSE_SEPARATOR = /[;|&()`{}<>\n\r]/;
/** Words that open or join commands rather than name a program. */
const LOOSE_SKIPPED = new Set([
  'if',
  'then',
  'else',
  'elif',
  'while',
  'until',
  'do',
  '!',
  'time',
  '-p',
  '$',
  '[[',
  // Builtins that run their arguments as a command or as code: what follows is the command.
  'eval',
  'exec',
  'command',
  'builtin',
  // `coproc rm x` runs `rm x` in the background.
  'coproc',
]);

/**
 * Shells and interpreters, as the code-taking table of `@birdie/entrypoints` lists them (`sh`, `bash`, `python3.12`,
 * `node`, `perl`…, one list for the template check and the rules): they take code inline (`sh -c CODE`,
 * `python3 -c CODE`) or, given no script, read it from their input (`sh`, `bash -s`, `… | python3`).
 */
function takesCode(program: string): boolean {
  return programEntry(program)?.readsCodeFromInput === true;
}

/**
 * Whether a simple command runs code it reads from its input (a pipe, a here-string): a shell or an interpreter
 * given no operand but options (`echo 'git push' | sh`, `bash -s <<< …`, `… | python3`).
 */
export function readsCodeFromInput(words: readonly string[]): boolean {
  if (!takesCode(baseName(words[0] ?? ''))) return false;
  return words.slice(1).every((word) => word.startsWith('-') && !/^-[A-Za-z]*[ce]$/.test(word));
}

/** Every word of a command as where a command could start: what data piped into a shell may run. */
export function suffixes(words: readonly string[]): string[][] {
  return words.map((_, i) => words.slice(i));
}

/**
 * Whether a loose command's word could be `text` once bash expanded it: it is, or it holds an expansion or a
 * substitution (`$g`, `r$(true)m`, `"$(echo rm)"`: nothing says what it holds), or a glob that matches it (`r?`,
 * `r[m]`: the files it finds decide; a bracket is taken to match anything, bash's classes not being picomatch's).
 */
export function couldBe(word: string, text: string): boolean {
  if (word === text) return true;
  if (!isUnknownWord(word)) return false;
  if (word.includes('[')) return true;
  try {
    return picomatch.isMatch(text, word.replace(/\$[A-Za-z_0-9]*/g, '*'), { dot: true });
  } catch {
    // A pattern picomatch cannot read: any text could be the one.
    return true;
  }
}

/** A word whose value bash decides: it holds an expansion or a substitution (`$…`) or a glob. */
export function isUnknownWord(word: string): boolean {
  return /[$*?[]/.test(word);
}

/**
 * A loose reading of a command line the reader could not place: quotes and backslashes removed, split at every
 * operator, substitution or group character, leading assignments and reserved words dropped. It over-approximates
 * the simple commands bash could run (`\rm x`, `x=1; rm x`, `echo $(rm x)` all yield `rm x`). Two readings are kept:
 * the flat one, where every substitution character is a separator (a command nested at any depth is seen), and one
 * where each substitution is read apart and stands for an unknown word where it was (`"$(echo rm)" x`, `r$(true)m x`).
 */
export function looseCommands(line: string): string[][] {
  const commands: string[][] = [];
  const seen = new Set<string>();
  const add = (words: string[]) => {
    const key = words.join('\0');
    if (seen.has(key)) return;
    seen.add(key);
    commands.push(words);
  };
  readFlat(line.replace(/\$\(/g, '('), add);
  const { outer, inner } = liftSubstitutions(line);
  readFlat(outer, add);
  // Deeper substitutions are in the flat reading already.
  for (const text of inner) readFlat(liftSubstitutions(text).outer, add);
  return commands;
}

function readFlat(line: string, add: (words: string[]) => void): void {
  // `${G:-git}` is one unknown word, not a group to split at.
  const text = expandBraces(line.replace(/\$\{[^}]*\}/g, '$X').replace(/["'\\]/g, ''));
  for (const piece of text.split(LOOSE_SEPARATOR)) {
    const words = piece.split(/[ \t]+/).filter((w) => w !== '');
    let start = 0;
    while (
      start < words.length &&
      (/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(words[start] as string) ||
        LOOSE_SKIPPED.has(words[start] as string))
    )
      start += 1;
    if (start < words.length) add(words.slice(start));
  }
}

/**
 * `line` with each outermost command substitution replaced by `$X` in its word (`r$(true)m` → `r$Xm`), and the
 * substitutions' own text. One pass, linear in the line.
 */
function liftSubstitutions(line: string): { outer: string; inner: string[] } {
  const inner: string[] = [];
  let outer = '';
  let i = 0;
  while (i < line.length) {
    if (line.startsWith('$(', i)) {
      let open = 1;
      let j = i + 2;
      for (; j < line.length && open > 0; j++) {
        if (line[j] === '(') open += 1;
        else if (line[j] === ')') open -= 1;
      }
      inner.push(line.slice(i + 2, open === 0 ? j - 1 : j));
      outer += '$X';
      i = j;
    } else if (line[i] === '`') {
      // A backquote escaped inside (`` `echo \`rm x\`` ``) nests: the flat reading splits at it.
      let j = i + 1;
      while (j < line.length && line[j] !== '`') j += line[j] === '\\' ? 2 : 1;
      inner.push(line.slice(i + 1, Math.min(j, line.length)));
      outer += '$X';
      i = j + 1;
    } else {
      outer += line[i];
      i += 1;
    }
  }
  return { outer, inner };
}

/** At most this many words come out of the brace expansions of one line; past it, a brace stands for anything. */
const MAX_BRACE_WORDS = 256;

/**
 * Brace expansion of the words that have one (`{rm,x}` → `rm x`, `a{b,c}d` → `abd acd`), word by word in one pass; a
 * sequence (`{a..z}`), a nested brace, or an expansion past `MAX_BRACE_WORDS` becomes `*`, a word that could be
 * anything. Groups (`{ rm x; }`) are left alone: their braces stand apart.
 */
function expandBraces(text: string): string {
  if (!text.includes('{')) return text;
  let budget = MAX_BRACE_WORDS;
  return text
    .split(/([ \t\n\r]+)/)
    .map((token) => {
      if (!token.includes('{') || !token.includes('}') || !/,|\.\./.test(token)) return token;
      let words = [token];
      for (let round = 0; round < 16; round++) {
        const next: string[] = [];
        let changed = false;
        for (const word of words) {
          const open = word.indexOf('{');
          const close = open < 0 ? -1 : word.indexOf('}', open);
          const body = close < 0 ? '' : word.slice(open + 1, close);
          if (close < 0 || body.includes('{') || !(body.includes(',') || body.includes('..'))) {
            next.push(word);
            continue;
          }
          changed = true;
          const alternatives = body.includes(',') && !body.includes('..') ? body.split(',') : ['*'];
          if (budget - alternatives.length < 0) {
            next.push(`${word.slice(0, open)}*${word.slice(close + 1)}`);
            continue;
          }
          budget -= alternatives.length;
          for (const alt of alternatives) next.push(`${word.slice(0, open)}${alt}${word.slice(close + 1)}`);
        }
        words = next;
        if (!changed) break;
      }
      // A word left with a brace and a list in it could be anything once expanded.
      return words.map((w) => (w.includes('{') && /,|\.\./.test(w) ? '*' : w)).join(' ');
    })
    .join('');
}

/** Every argv a deny or ask rule matches a simple command's words as (the words themselves first). */
export function restrictingViews(words: readonly string[]): string[][] {
  const views: string[][] = [];
  const seen = new Set<string>();
  const add = (view: readonly string[], depth: number): void => {
    if (view.length === 0 || depth > MAX_DEPTH) return;
    const key = view.join('\0');
    if (seen.has(key)) return;
    seen.add(key);
    views.push([...view]);
    const program = baseName(view[0] as string);
    if (program !== view[0]) add([program, ...view.slice(1)], depth);
    if (program === 'git') {
      const { words: bare, aliases } = withoutGitGlobals([program, ...view.slice(1)]);
      add(bare, depth);
      for (const runs of aliasRuns(aliases, (bare[1] ?? '').toLowerCase(), bare.slice(2)))
        add(runs, depth + 1);
    }
    // A command the program runs (`git bisect run rm x`, `npm exec -- rm x`, `find . -exec rm {} +`).
    const nested = nestedCommandIndex([program, ...view.slice(1)]);
    if (nested !== undefined) add(view.slice(nested), depth + 1);
    if (takesCode(program)) {
      // Inline code (`python3 -c "os.system('git push')"`): a loose reading finds a command line written in it.
      for (const word of view.slice(1))
        if (/[\s;|&(]/.test(word)) for (const inner of looseCommands(word)) add(inner, depth + 1);
    }
    if (COMMAND_RUNNERS.has(program)) {
      for (let i = 1; i < view.length; i++) {
        add(view.slice(i), depth + 1);
        const word = view[i] as string;
        if (/[\s;|&]/.test(word)) for (const inner of looseCommands(word)) add(inner, depth + 1);
      }
    }
  };
  add(words, 0);
  return views;
}
