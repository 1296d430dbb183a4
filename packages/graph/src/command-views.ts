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
function aliasRuns(value: string, args: readonly string[]): string[][] {
  if (value.startsWith('!')) return looseCommands([value.slice(1), ...args].join(' '));
  return [['git', ...value.split(/[ \t]+/).filter((w) => w !== ''), ...args]];
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
 * Whether a loose command's first word could name `program`: an expansion or a substitution (`$g push`,
 * `${G:-git} push`, `"$(echo rm)" x`: nothing says what it runs), or a glob whose last part matches it (`/bin/r? x`,
 * `r[m] x`: the files it finds decide).
 */
export function couldNameProgram(word: string, program: string): boolean {
  if (word.startsWith('$')) return true;
  const name = baseName(word);
  if (!/[*?[]/.test(name)) return false;
  try {
    return picomatch.isMatch(program, name, { dot: true });
  } catch {
    // A pattern picomatch cannot read: any name could be the one.
    return true;
  }
}


/**
 * A loose reading of a command line the reader could not place: quotes and backslashes removed, split at every
 * operator, substitution or group character, leading assignments and reserved words dropped. It over-approximates
 * the simple commands bash could run (`\rm x`, `x=1; rm x`, `echo $(rm x)` all yield `rm x`).
 */
export function looseCommands(line: string): string[][] {
  const commands: string[][] = [];
  readLoosely(line, commands, 0);
  return commands;
}

function readLoosely(line: string, commands: string[][], depth: number): void {
  // A substitution (`$(…)`, `` `…` ``) is read as commands of its own, and stands for one unknown word where it is:
  // `"$(echo rm)" x` runs a program nothing names. `${G:-git}` is one unknown word too, not a group to split at.
  const { outer, inner } = liftSubstitutions(line);
  if (depth < MAX_DEPTH) for (const text of inner) readLoosely(text, commands, depth + 1);
  const text = expandBraces(outer.replace(/\$\{[^}]*\}/g, '$X').replace(/["'\\]/g, ''));
  for (const piece of text.split(LOOSE_SEPARATOR)) {
    const words = piece.split(/[ \t]+/).filter((w) => w !== '');
    let start = 0;
    while (
      start < words.length &&
      (/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(words[start] as string) ||
        LOOSE_SKIPPED.has(words[start] as string))
    )
      start += 1;
    if (start < words.length) commands.push(words.slice(start));
  }
}

/** `line` with each command substitution replaced by `$X`, and the substitutions' own text. */
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
      outer += ' $X ';
      i = j;
    } else if (line[i] === '`') {
      const close = line.indexOf('`', i + 1);
      const end = close < 0 ? line.length : close;
      inner.push(line.slice(i + 1, end));
      outer += ' $X ';
      i = end + 1;
    } else {
      outer += line[i];
      i += 1;
    }
  }
  return { outer, inner };
}

/** Brace expansion of the words that have one (`{rm,x}` → `rm x`, `a{b,c}d` → `abd acd`); groups are left alone. */
function expandBraces(text: string): string {
  const brace = /(\S*?)\{([^{}\s]*,[^{}\s]*)\}(\S*)/;
  let out = text;
  for (let round = 0; round < 8; round++) {
    const match = brace.exec(out);
    if (!match) break;
    const [whole, prefix, body, suffix] = match as unknown as [string, string, string, string];
    const words = body.split(',').map((alt) => `${prefix}${alt}${suffix}`);
    out = `${out.slice(0, match.index)}${words.join(' ')}${out.slice(match.index + whole.length)}`;
  }
  return out;
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
      const alias = aliases.get((bare[1] ?? '').toLowerCase());
      if (alias !== undefined) for (const runs of aliasRuns(alias, bare.slice(2))) add(runs, depth + 1);
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
