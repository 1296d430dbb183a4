/**
 * Which variable names a `bash:` template may give a value (a placeholder, or text derived from one): the one place
 * that decides it. A value in a name that bash itself acts on, or that a child process reads from its environment,
 * chooses what runs (`PATH={v} ls`, `GIT_EXTERNAL_DIFF={v} git diff`, `BASH_ENV`, `LD_PRELOAD`, `PAGER`, …), so only
 * the short list below of data-only names may take one. A lower-case variable that the template never exports is
 * the template's own and stays free.
 */

/**
 * Data-only names: whatever a value holds, a program reading one of them only formats its output differently. Each
 * entry says why it is safe. Deliberately absent: the locale variables (`LANG`, `LANGUAGE`, `LC_*`): a value with
 * a `/` makes glibc and gettext load locale data and message catalogs from that path, and a catalog's translated
 * format strings reach `printf` in the program (`LANGUAGE=../../x cat --help` prints a planted catalog's text).
 */
export const DATA_ONLY_NAMES: ReadonlyMap<string, string> = new Map([
  [
    'TZ',
    'a zone name or the path of a tzfile: glibc only parses it as time-zone data; it never names a program or code',
  ],
  [
    'TERM',
    'a terminal type: ncurses refuses names with a "/" and reads only the system terminfo descriptions',
  ],
  ['COLUMNS', 'a width in columns, read as a number'],
  ['LINES', 'a height in lines, read as a number'],
  ['NO_COLOR', 'a flag: present means "no colour", whatever its text'],
]);

/**
 * Bash's own integer variables: an assignment to them is arithmetic (`RANDOM={n}` seeds the generator), which the
 * integer rule governs (bash-attributes.ts); they are never read from the environment.
 */
export const BASH_INTEGER_VARIABLES: ReadonlySet<string> = new Set([
  'RANDOM',
  'SRANDOM',
  'OPTIND',
  'HISTCMD',
  'SECONDS',
  'LINENO',
]);

/** What a name does, for the message: the families the issue names, first match wins. */
const KNOWN: ReadonlyArray<readonly [RegExp, string]> = [
  [/^PATH$/, 'chooses the program every command name runs'],
  [/^(CDPATH|HOME)$/, "chooses where 'cd' and '~' go"],
  [/^IFS$/, 'decides how bash splits every unquoted expansion into words'],
  [/^(BASH_ENV|ENV)$/, 'names a file every child shell runs first'],
  [/^(PS[0-4]|PROMPT_COMMAND|PROMPT_DIRTRIM)$/, 'is a prompt that bash expands, running its $( … )'],
  [
    /^(SHELLOPTS|BASHOPTS|GLOBIGNORE|FUNCNEST|POSIXLY_CORRECT|BASH_COMPAT)$/,
    'changes how bash reads the rest',
  ],
  [/^(BASH_CMDS|BASH_ALIASES|BASH_LOADABLES_PATH|EXECIGNORE)$/, 'decides what program or code a name runs'],
  [
    /^(BASH_XTRACEFD|HISTFILE|HOSTFILE|INPUTRC|MAIL|MAILPATH|MAILCHECK|TMOUT|TMPDIR)$/,
    'is a file, descriptor or timer bash acts on',
  ],
  [/^LD_/, 'makes the dynamic linker load libraries into every program'],
  [
    /^GIT_/,
    'configures git, which runs programs named there (GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_EDITOR …)',
  ],
  [/_COMMAND$/, 'is a command that some program runs'],
  [/^(PAGER|MANPAGER|EDITOR|VISUAL|SHELL|BROWSER)$/, 'names a program that other programs start'],
  [
    /^(PYTHON|PERL5|PERL|RUBY|NODE_|NPM_|JAVA_|GEM_|LUA_)/,
    'is read by an interpreter at start-up (modules, options, start-up code)',
  ],
];

/** Where a value is assigned to `name`, and whether the assignment is in the environment of what runs next. */
export interface EnvironmentAssignment {
  name: string;
  /** A prefix assignment (`NAME=… cmd`), `env NAME=…`, `export`, `declare -x`, `local -x`, or exported elsewhere. */
  exported: boolean;
}

/**
 * Why a value may not be assigned to `name`, or undefined when it may: a data-only name, bash's integers (the
 * integer rule covers them), or a lower-case name that is not exported.
 */
export function environmentNameProblem({ name, exported }: EnvironmentAssignment): string | undefined {
  if (DATA_ONLY_NAMES.has(name) || BASH_INTEGER_VARIABLES.has(name)) return undefined;
  const known = KNOWN.find(([pattern]) => pattern.test(name))?.[1];
  if (known) return `${name} ${known}`;
  // Upper-case names are the environment's by convention: the user's, birdie's (BIRDIE_HOME …) or a runtime's
  // variables arrive exported, so assigning one changes what every child sees.
  if (!/[a-z]/.test(name)) return `${name} is an environment name (upper case), which children may read`;
  if (exported) return `${name} is exported, so every child reads it from its environment`;
  return undefined;
}

/** The data-only names, for messages: `TZ, TERM, …`. */
export function dataOnlyNames(): string {
  return [...DATA_ONLY_NAMES.keys()].join(', ');
}
