import { COMMAND_RUNNERS, nestedCommandIndex, programEntry } from '@birdie/entrypoints';

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

/** `git [global options] SUBCOMMAND …` → `git SUBCOMMAND …`. */
function withoutGitGlobals(words: readonly string[]): string[] {
  let i = 1;
  while (i < words.length) {
    const word = words[i] as string;
    if (!word.startsWith('-') || word === '-') break;
    i += GIT_VALUE_OPTIONS.has(word) ? 2 : 1;
  }
  return ['git', ...words.slice(i)];
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

/** A loose command whose program is an expansion (`$g push`, `${G:-git} push`): nothing says what it runs. */
export function namesUnknownProgram(words: readonly string[]): boolean {
  return (words[0] ?? '').startsWith('$');
}

/**
 * A loose reading of a command line the reader could not place: quotes and backslashes removed, split at every
 * operator, substitution or group character, leading assignments and reserved words dropped. It over-approximates
 * the simple commands bash could run (`\rm x`, `x=1; rm x`, `echo $(rm x)` all yield `rm x`).
 */
export function looseCommands(line: string): string[][] {
  // `${G:-git}` is one unknown word, not a group to split at.
  const text = line
    .replace(/\$\{[^}]*\}/g, '$X')
    .replace(/\$\(/g, '(')
    .replace(/["'\\]/g, '');
  const commands: string[][] = [];
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
  return commands;
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
    if (program === 'git') add(withoutGitGlobals(view), depth);
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
