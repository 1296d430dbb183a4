/**
 * Programs that run some of their arguments as code, and options that write files: ONE table, read by two users
 * through `code-taking-argv.ts` (which reads an argv the way the program does):
 *
 * - The `bash:` template check asks "does this simple command take code, and where?" (`dangerousArguments`) to
 *   warn when a value can become code there (the tool then asks for approval).
 * - Approval rules ask "is word `index` of this argv a code-taking or file-writing option?" (`dangerousOption`):
 *   a `*` in `run_bash(git log *)` must not match `--output=~/.bashrc`.
 *
 * Options are read the way the programs read them: short options bundle (`perl -ne CODE`, `bash -ec CODE`), a
 * short option's value may be glued (`-oFILE`) or the next word, a long option's value follows `=` or is the next
 * word, and long options may be abbreviated (GNU getopt_long and git accept any unambiguous prefix: `--outp=F`
 * is `--output=F`), so every prefix of a dangerous long option counts as that option. Options end at `--`, and
 * for `posix` programs (shells, interpreters, runners) at the first operand. A runner's operands are a command
 * (`xargs sh -c …`, `timeout 5 perl -e …`, `find … -exec … \;`): its words are read with that command's entry.
 *
 * What is left out on purpose: programs whose every use writes files or runs code by nature (`cp`, `rm`, `make`
 * targets, `npm run`, `docker run`) are not option problems; a program's own configuration can be code (a
 * `package.json` script, a Makefile, `.git/config`), which no argv check sees.
 */

/** What an option or argument does: runs code, or writes (or deletes) a file. */
export type Danger = 'code' | 'file-write';

/**
 * How the code arrives:
 * - `script`: program text in the program's own language (`perl -e`, an awk program, a sed script, `sh -c`);
 * - `command`: a command line or program to run (`tar --to-command`, `rsync -e`, `git --upload-pack`);
 * - `file`: the path of a file whose content is code (`awk -f`, `ssh -F`, a shell's script operand);
 * - `setting`: configuration that can name programs (`git -c core.pager=…`, `ssh -o ProxyCommand=…`, `wget -e`).
 */
export type CodeForm = 'script' | 'command' | 'file' | 'setting';

/**
 * How an option takes its value: `required` (glued `-xV`, `--x=V`, else the next word), `optional` (glued only),
 * `none`, or `operand` (never glued: the next word, and the rest of a bundle are more options: `bash -ec CODE`).
 */
export type OptionValue = 'required' | 'optional' | 'none' | 'operand';

export interface OptionEntry {
  /** One letter, written `-x`, bundled `-abx`, value glued `-xVALUE` or next word. */
  readonly short?: string;
  /** A GNU long option without its dashes, written `--name`, `--name=VALUE` or `--name VALUE`. */
  readonly long?: string;
  /** A whole word as it is written (`-exec` of find, `-cmd` of sqlite3, `of=` of dd): no bundling, no prefix. */
  readonly word?: string;
  /** Any word starting with this text and longer (`+cmd` of vim and less): the rest of the word is the value. */
  readonly startsWith?: string;
  /** Absent: an option listed only because it takes a value (so its value is not read as options). */
  readonly danger?: Danger;
  /** The program then only looks its operands up and runs nothing (`command -v`). */
  readonly lookupOnly?: boolean;
  /** For `code`: how the code arrives. */
  readonly form?: CodeForm;
  /** Default `required` for a listed option with a danger or listed for its value. */
  readonly value?: OptionValue;
  /** What it does, for messages: "runs its value as Perl code". */
  readonly what?: string;
  /**
   * For a `file-write` option whose value is not itself the file but may name files inside it (curl's
   * `-w '%output{F}'`): the files the value names. The option is dangerous only when there are some.
   */
  readonly writtenIn?: (value: string) => readonly string[];
}

/**
 * What a program's operands are:
 * - `script`: the first operand is program text (awk, sed), unless a `script`-form option gave the program;
 * - `script-file`: the first operand is a file of code (shells, interpreters), unless an option gave the code;
 * - `command`: after `skip` leading operands, the rest is a command the program runs (xargs, timeout, env);
 * - `shell-command`: the operands are joined into a shell command line (`watch`, `su -c` style, `ssh host cmd`),
 *   after `skip` leading operands;
 * - `written`: every operand is a file the program writes (`tee`);
 * - `assignment-code`: an operand `NAME=value` sets a variable that can be a program (`make CC=…`).
 */
export type OperandRule =
  | { readonly kind: 'script'; readonly what: string }
  | { readonly kind: 'script-file'; readonly what: string }
  | { readonly kind: 'command'; readonly skip?: number; readonly assignments?: boolean }
  | { readonly kind: 'shell-command'; readonly skip?: number; readonly what: string }
  | { readonly kind: 'written'; readonly what: string }
  | { readonly kind: 'assignment-code'; readonly what: string };

export interface ProgramEntry {
  /** The names it runs under (basename; a trailing version such as `python3.12` or `perl5.36` is also matched). */
  readonly names: readonly string[];
  /** The language of its code, for messages: "Perl". */
  readonly language: string;
  /**
   * `getopt`: options anywhere until `--` (GNU permutation); `posix`: options end at the first operand;
   * `find`: find's syntax (options, start points, then an expression of single-dash words).
   */
  readonly syntax: 'getopt' | 'posix' | 'find';
  readonly options: readonly OptionEntry[];
  readonly operands?: OperandRule;
  /**
   * Its literal code cannot be analysed here (a general-purpose language that can read argv, the environment and
   * stdin and evaluate them), so even literal inline code is reported by the template check.
   */
  readonly opaque?: boolean;
  /** It reads code from standard input when no operand or option gives it (`python3`, `at`, `sqlite3`). */
  readonly readsCodeFromInput?: boolean;
  /** Files it runs as code when no option names others (`make` runs `./Makefile`): written by a template, reported. */
  readonly implicitCode?: readonly string[];
  /** Inline code ends its options: the words after `sh -c CODE` or `python3 -c CODE` are the code's own argv. */
  readonly codeEndsOptions?: boolean;
  /** The first word may be a bundle without its dash (`tar xzf FILE`). */
  readonly dashlessBundle?: boolean;
  /** Subcommands with their own options (git): the first operand names it. */
  readonly subcommands?: Readonly<Record<string, SubcommandEntry>>;
  /** The program's options stay valid after any subcommand, listed or not (npm's configuration flags). */
  readonly subcommandsKeepOptions?: boolean;
}

export interface SubcommandEntry {
  readonly options: readonly OptionEntry[];
  readonly operands?: OperandRule;
  /** Naming the subcommand itself is the danger (`git config` writes configuration that can name programs). */
  readonly danger?: Danger;
  readonly what?: string;
  /** Nested subcommands (`git bisect run`, `git submodule foreach`). */
  readonly subcommands?: Readonly<Record<string, SubcommandEntry>>;
}

const code = (form: CodeForm, what: string) => ({ danger: 'code', form, what }) as const;
const writes = (what: string) => ({ danger: 'file-write', what }) as const;
/**
 * curl 8.3's `--expand-X` is option X with `{{variables}}` expanded in its value: the same danger (`--expand-output F`
 * writes F, `--expand-data V` takes V): every listed long option that takes a value gets its `expand-` twin.
 */
const withCurlExpansion = (options: OptionEntry[]): OptionEntry[] => [
  ...options,
  ...options
    .filter((o) => o.long !== undefined && o.value !== 'none')
    .map(({ short: _short, ...o }) => ({ ...o, long: `expand-${o.long}` })),
];

/**
 * The files a curl `-w` format writes: `%output{FILE}` sends the rest of the output to FILE, `%output{>>FILE}` appends
 * (curl 8.3). An unclosed `{` is read as naming the rest of the word, which only ever asks more. A format whose text
 * is not on the command line (`@FILE` and `@-` read it from a file or stdin; `{{name}}` in `--expand-write-out` is a
 * `--variable` set elsewhere) may write any file: the value itself is named, so the option stays a file write.
 */
export function curlWriteOutFiles(format: string): string[] {
  if (format.startsWith('@') || format.includes('{{')) return [format];
  return [...format.matchAll(/%output\{(?:>>)?([^}]*)\}?/gi)].map((match) => match[1]!);
}

/** Options that only take a value: listed so the value is not read as options. */
const values = (letters: string, longs: readonly string[] = []): OptionEntry[] => [
  ...[...letters].map((short) => ({ short })),
  ...longs.map((long) => ({ long })),
];

const SHELL_OPTIONS: OptionEntry[] = [
  { short: 'c', value: 'operand', ...code('script', 'runs its value as a shell script') },
  { long: 'rcfile', ...code('file', 'runs the file as a start-up script') },
  { long: 'init-file', ...code('file', 'runs the file as a start-up script') },
  ...values('oO'),
];

const PYTHON_OPTIONS: OptionEntry[] = [
  { short: 'c', ...code('script', 'runs its value as Python code') },
  { short: 'm', ...code('command', 'runs the named module as a program') },
  ...values('WX'),
];

const AWK_OPTIONS: OptionEntry[] = [
  { short: 'f', long: 'file', ...code('file', 'reads its awk program from the file') },
  { short: 'e', long: 'source', ...code('script', 'runs its value as awk code') },
  { short: 'E', long: 'exec', ...code('file', 'reads its awk program from the file') },
  { short: 'i', long: 'include', ...code('file', 'includes the awk source file') },
  { short: 'l', long: 'load', ...code('file', 'loads the shared library as an extension') },
  { short: 'o', long: 'pretty-print', value: 'optional', ...writes('writes the program to the file') },
  { short: 'p', long: 'profile', value: 'optional', ...writes('writes a profile to the file') },
  { short: 'd', long: 'dump-variables', value: 'optional', ...writes('writes the variables to the file') },
  ...values('vFW', ['assign', 'field-separator']),
];

const SSH_OPTIONS: OptionEntry[] = [
  { short: 'o', ...code('setting', 'sets an option that can run a command (ProxyCommand, LocalCommand)') },
  { short: 'F', ...code('file', 'reads a configuration that can run commands (ProxyCommand)') },
];

/** Runners: the options that take a value, so the command is found after them. */
const PROGRAMS: readonly ProgramEntry[] = [
  {
    names: ['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'posh', 'yash', 'fish', 'rbash'],
    language: 'shell',
    syntax: 'posix',
    options: [...SHELL_OPTIONS, { long: 'command', ...code('script', 'runs its value as a shell script') }],
    operands: { kind: 'script-file', what: 'runs the file as a shell script' },
    readsCodeFromInput: true,
    codeEndsOptions: true,
  },
  {
    names: ['eval'],
    language: 'shell',
    syntax: 'posix',
    options: [],
    operands: { kind: 'shell-command', what: 'runs its operands as a shell command' },
  },
  {
    names: ['source', '.'],
    language: 'shell',
    syntax: 'posix',
    options: [],
    operands: { kind: 'script-file', what: 'runs the file as a shell script in this shell' },
  },
  {
    names: ['perl'],
    language: 'Perl',
    syntax: 'posix',
    options: [
      { short: 'e', ...code('script', 'runs its value as Perl code') },
      { short: 'E', ...code('script', 'runs its value as Perl code') },
      { short: 'M', ...code('script', 'loads a module with code of its own (-M"X;system…")') },
      { short: 'm', ...code('script', 'loads a module with code of its own') },
      { short: 'd', value: 'optional', ...code('script', 'runs under a debugger module') },
      { short: 'i', value: 'optional', ...writes('edits the named files in place') },
      { short: 'I', ...code('file', 'adds a folder that modules are loaded from') },
      { short: 'x', value: 'optional' },
      { short: 'l', value: 'optional' },
      { short: '0', value: 'optional' },
      { short: 'C', value: 'optional' },
      { short: 'D', value: 'optional' },
    ],
    operands: { kind: 'script-file', what: 'runs the file as Perl code' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['python', 'pypy', 'pypy3'],
    language: 'Python',
    syntax: 'posix',
    options: PYTHON_OPTIONS,
    operands: { kind: 'script-file', what: 'runs the file as Python code' },
    opaque: true,
    readsCodeFromInput: true,
    codeEndsOptions: true,
  },
  {
    names: ['node', 'nodejs', 'bun', 'deno'],
    language: 'JavaScript',
    syntax: 'posix',
    options: [
      { short: 'e', long: 'eval', ...code('script', 'runs its value as JavaScript') },
      { short: 'p', long: 'print', ...code('script', 'runs its value as JavaScript') },
      { short: 'r', long: 'require', ...code('file', 'loads the module first') },
      { long: 'import', ...code('file', 'loads the module first') },
      { long: 'loader', ...code('file', 'loads the module as a loader') },
      { long: 'experimental-loader', ...code('file', 'loads the module as a loader') },
      ...values('', ['input-type', 'env-file', 'conditions']),
    ],
    operands: { kind: 'script-file', what: 'runs the file as JavaScript' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['ruby', 'jruby'],
    language: 'Ruby',
    syntax: 'posix',
    options: [
      { short: 'e', ...code('script', 'runs its value as Ruby code') },
      { short: 'r', ...code('file', 'requires the library first') },
      { short: 'I', ...code('file', 'adds a folder that libraries are loaded from') },
      { short: 'i', value: 'optional', ...writes('edits the named files in place') },
      { short: 'x', value: 'optional' },
      { short: 'C' },
      { short: 'E' },
      { short: 'F' },
      { short: '0', value: 'optional' },
    ],
    operands: { kind: 'script-file', what: 'runs the file as Ruby code' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['php'],
    language: 'PHP',
    syntax: 'posix',
    options: [
      { short: 'r', ...code('script', 'runs its value as PHP code') },
      { short: 'B', ...code('script', 'runs its value as PHP code') },
      { short: 'R', ...code('script', 'runs its value as PHP code for every input line') },
      { short: 'E', ...code('script', 'runs its value as PHP code') },
      { short: 'F', ...code('file', 'runs the file for every input line') },
      { short: 'f', ...code('file', 'runs the file as PHP code') },
      { short: 'd', ...code('setting', 'sets an ini entry that can load code (auto_prepend_file)') },
      { short: 'c', ...code('file', 'reads an ini file that can load code') },
    ],
    operands: { kind: 'script-file', what: 'runs the file as PHP code' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['lua', 'luajit'],
    language: 'Lua',
    syntax: 'posix',
    options: [
      { short: 'e', ...code('script', 'runs its value as Lua code') },
      { short: 'l', ...code('file', 'loads the library first') },
    ],
    operands: { kind: 'script-file', what: 'runs the file as Lua code' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['Rscript', 'R'],
    language: 'R',
    syntax: 'posix',
    options: [{ short: 'e', ...code('script', 'runs its value as R code') }],
    operands: { kind: 'script-file', what: 'runs the file as R code' },
    opaque: true,
  },
  {
    names: ['osascript'],
    language: 'AppleScript',
    syntax: 'posix',
    options: [{ short: 'e', ...code('script', 'runs its value as AppleScript') }],
    operands: { kind: 'script-file', what: 'runs the file as AppleScript' },
    opaque: true,
  },
  {
    names: ['pwsh', 'powershell'],
    language: 'PowerShell',
    syntax: 'posix',
    options: [
      { short: 'c', ...code('script', 'runs its value as PowerShell') },
      { word: '-Command', ...code('script', 'runs its value as PowerShell') },
      { word: '-EncodedCommand', ...code('script', 'runs its value as PowerShell') },
      { word: '-File', ...code('file', 'runs the file as PowerShell') },
    ],
    opaque: true,
  },
  {
    names: ['expect', 'tclsh', 'wish'],
    language: 'Tcl',
    syntax: 'posix',
    options: [{ short: 'c', ...code('script', 'runs its value as Tcl code') }],
    operands: { kind: 'script-file', what: 'runs the file as Tcl code' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk'],
    language: 'awk',
    syntax: 'getopt',
    options: AWK_OPTIONS,
    operands: { kind: 'script', what: 'runs its first operand as an awk program' },
  },
  {
    names: ['sed', 'gsed'],
    language: 'sed',
    syntax: 'getopt',
    options: [
      { short: 'e', long: 'expression', ...code('script', 'runs its value as a sed script') },
      { short: 'f', long: 'file', ...code('file', 'reads its sed script from the file') },
      { short: 'i', long: 'in-place', value: 'optional', ...writes('edits the named files in place') },
      ...values('l', ['line-length']),
    ],
    operands: { kind: 'script', what: 'runs its first operand as a sed script' },
  },
  {
    names: ['dc'],
    language: 'dc',
    syntax: 'getopt',
    options: [
      { short: 'e', long: 'expression', ...code('script', 'runs its value as dc code (`!` runs a command)') },
      { short: 'f', long: 'file', ...code('file', 'runs the file as dc code') },
    ],
    operands: { kind: 'script-file', what: 'runs the file as dc code' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['ed', 'red', 'ex'],
    language: 'ed',
    syntax: 'getopt',
    options: [],
    readsCodeFromInput: true,
    opaque: true,
  },
  {
    names: ['vim', 'vi', 'nvim', 'view', 'vimdiff', 'gvim'],
    language: 'Vim script',
    syntax: 'getopt',
    options: [
      { short: 'c', ...code('script', 'runs its value as an Ex command') },
      { long: 'cmd', ...code('script', 'runs its value as an Ex command') },
      { short: 'S', ...code('file', 'sources the file') },
      { short: 'u', ...code('file', 'sources the file as vimrc') },
      { short: 's', ...code('file', 'reads normal-mode commands from the file') },
      { short: 'w', ...writes('records typed keys into the file') },
      { short: 'W', ...writes('records typed keys into the file') },
      { startsWith: '+', ...code('script', 'runs the Ex command after +') },
    ],
    opaque: true,
  },
  {
    names: ['emacs'],
    language: 'Emacs Lisp',
    syntax: 'getopt',
    options: [
      { long: 'eval', ...code('script', 'runs its value as Emacs Lisp') },
      { short: 'l', long: 'load', ...code('file', 'loads the file as Emacs Lisp') },
      { short: 'f', long: 'funcall', ...code('command', 'calls the named function') },
    ],
    opaque: true,
  },
  {
    names: ['less', 'more'],
    language: 'less commands',
    syntax: 'getopt',
    options: [
      { short: 'o', long: 'log-file', ...writes('copies its input to the file') },
      { short: 'O', long: 'LOG-FILE', ...writes('copies its input to the file') },
      { startsWith: '+', ...code('script', 'runs the less commands after + (`|`, `!` run commands)') },
      ...values('bhjkpPtTxyz#', ['tag', 'pattern', 'prompt']),
    ],
  },
  {
    names: ['man'],
    language: 'man',
    syntax: 'getopt',
    options: [
      { short: 'P', long: 'pager', ...code('command', 'runs its value as the pager') },
      { short: 'H', long: 'html', value: 'optional', ...code('command', 'runs its value as the browser') },
      ...values('MLCSsmp', ['manpath', 'locale', 'config-file', 'sections', 'systems', 'preprocessor']),
    ],
  },
  {
    names: ['gdb'],
    language: 'gdb commands',
    syntax: 'getopt',
    options: [
      { long: 'ex', ...code('script', 'runs its value as a gdb command (`shell …`)') },
      { word: '-ex', ...code('script', 'runs its value as a gdb command (`shell …`)') },
      { long: 'eval-command', ...code('script', 'runs its value as a gdb command') },
      { short: 'x', long: 'command', ...code('file', 'runs the file as gdb commands') },
      { word: '-iex', ...code('script', 'runs its value as a gdb command') },
    ],
    opaque: true,
  },
  {
    names: ['sqlite3'],
    language: 'SQLite shell',
    syntax: 'getopt',
    options: [
      { word: '-cmd', ...code('script', 'runs its value as a sqlite3 command (`.shell …`)') },
      { word: '-init', ...code('file', 'runs the file as sqlite3 commands') },
    ],
    // `sqlite3 DB '.shell cmd'`: the operand after the database is run, dot-commands included
    operands: { kind: 'shell-command', skip: 1, what: 'runs its operands as sqlite3 commands (`.shell …`)' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['psql'],
    language: 'psql commands',
    syntax: 'getopt',
    options: [
      { short: 'c', long: 'command', ...code('script', 'runs its value as psql commands (`\\! …`)') },
      { short: 'f', long: 'file', ...code('file', 'runs the file as psql commands') },
      { short: 'o', long: 'output', ...writes('writes query results to the file') },
      { short: 'L', long: 'log-file', ...writes('writes a log to the file') },
      ...values('dhpUvP', ['dbname', 'host', 'port', 'username', 'set', 'variable', 'pset']),
    ],
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['mysql', 'mariadb'],
    language: 'mysql commands',
    syntax: 'getopt',
    options: [
      { short: 'e', long: 'execute', ...code('script', 'runs its value as mysql commands (`system …`)') },
      { long: 'init-command', ...code('script', 'runs its value as SQL on connect') },
      { long: 'tee', ...writes('copies the session to the file') },
      { long: 'pager', value: 'optional', ...code('command', 'runs its value as the pager') },
      ...values('hPuDS', ['host', 'port', 'user', 'database', 'socket']),
    ],
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['at', 'batch'],
    language: 'shell',
    syntax: 'getopt',
    options: [{ short: 'f', ...code('file', 'runs the file as a shell script later') }, ...values('qt')],
    readsCodeFromInput: true,
    opaque: true,
  },
  {
    names: ['crontab'],
    language: 'crontab',
    syntax: 'getopt',
    options: [...values('u')],
    operands: { kind: 'script-file', what: 'installs the file as a crontab: its commands run later' },
    readsCodeFromInput: true,
    opaque: true,
  },
  {
    names: ['find'],
    language: 'find',
    syntax: 'find',
    options: [
      { word: '-exec', ...code('command', 'runs a command for each file') },
      { word: '-execdir', ...code('command', 'runs a command for each file') },
      { word: '-ok', ...code('command', 'runs a command for each file') },
      { word: '-okdir', ...code('command', 'runs a command for each file') },
      { word: '-delete', value: 'none', ...writes('deletes the files it finds') },
      { word: '-fprint', ...writes('writes the names found to the file') },
      { word: '-fprint0', ...writes('writes the names found to the file') },
      { word: '-fprintf', ...writes('writes the names found to the file') },
      { word: '-fls', ...writes('writes the names found to the file') },
    ],
  },
  {
    names: ['xargs'],
    language: 'command',
    syntax: 'posix',
    options: [
      ...values('aEILnPsd', ['arg-file', 'eof', 'replace', 'max-lines', 'max-args', 'max-procs']),
      ...values('', ['max-chars', 'delimiter', 'process-slot-var']),
      { short: 'e', value: 'optional' },
      { short: 'i', value: 'optional' },
      { short: 'l', value: 'optional' },
    ],
    operands: { kind: 'command' },
  },
  {
    names: ['env'],
    language: 'command',
    syntax: 'posix',
    options: [
      { short: 'S', long: 'split-string', ...code('command', 'splits its value into the command it runs') },
      ...values('uCP', ['unset', 'chdir', 'default-signal', 'ignore-signal', 'block-signal']),
    ],
    operands: { kind: 'command', assignments: true },
  },
  ...(['nohup', 'setsid', 'time', 'exec', 'builtin', 'busybox'] as const).map(
    (name): ProgramEntry => ({
      names: [name],
      language: 'command',
      syntax: 'posix',
      options: values(name === 'exec' ? 'a' : ''),
      operands: { kind: 'command' },
    }),
  ),
  {
    names: ['command'],
    language: 'command',
    syntax: 'posix',
    options: [
      { short: 'v', value: 'none', lookupOnly: true },
      { short: 'V', value: 'none', lookupOnly: true },
    ],
    operands: { kind: 'command' },
  },
  {
    names: ['strace', 'ltrace'],
    language: 'command',
    syntax: 'posix',
    options: [{ short: 'o', ...writes('writes the trace to the file') }, ...values('epuEsSIP')],
    operands: { kind: 'command' },
  },
  {
    names: ['split'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { long: 'filter', ...code('script', 'runs its value as a shell command for each piece') },
      ...values('abCln', ['suffix-length', 'bytes', 'line-bytes', 'lines', 'number', 'additional-suffix']),
    ],
  },
  {
    names: ['m4'],
    language: 'm4',
    syntax: 'getopt',
    options: [...values('DIUdlt', ['define', 'include', 'undefine', 'debug', 'trace'])],
    operands: { kind: 'script-file', what: 'runs the file as m4 macros (esyscmd, syscmd)' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['gnuplot'],
    language: 'gnuplot',
    syntax: 'getopt',
    options: [{ short: 'e', ...code('script', 'runs its value as gnuplot commands (system …)') }],
    operands: { kind: 'script-file', what: 'runs the file as gnuplot commands' },
    opaque: true,
    readsCodeFromInput: true,
  },
  {
    names: ['nc', 'ncat', 'netcat'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { short: 'e', long: 'exec', ...code('command', 'runs the program with the connection') },
      {
        short: 'c',
        long: 'sh-exec',
        ...code('script', 'runs its value as a shell command with the connection'),
      },
      { long: 'lua-exec', ...code('file', 'runs the Lua file with the connection') },
      { short: 'o', long: 'output', ...writes('writes the session to the file') },
      ...values('psiqwWxXTOIMPg', ['source-port', 'source', 'wait', 'proxy', 'proxy-type']),
    ],
  },
  {
    names: ['socat'],
    language: 'command',
    syntax: 'posix',
    options: [...values('dlLTb')],
    // an address may be `EXEC:cmd` or `SYSTEM:cmd`
    operands: { kind: 'shell-command', what: 'takes addresses that can run commands (EXEC:, SYSTEM:)' },
  },
  {
    names: ['hg'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { long: 'config', ...code('setting', 'sets configuration that can name programs (hooks, ui.editor)') },
    ],
  },
  {
    names: ['sudo', 'doas', 'run0'],
    language: 'command',
    syntax: 'posix',
    options: [...values('ugpCDhRrTUt', ['user', 'group', 'prompt', 'chdir', 'host', 'close-from'])],
    operands: { kind: 'command', assignments: true },
  },
  {
    names: ['nice', 'ionice', 'stdbuf', 'unshare', 'nsenter', 'prlimit', 'systemd-run'],
    language: 'command',
    syntax: 'posix',
    options: [...values('ncptoeiIS', ['adjustment', 'class', 'classdata', 'input', 'output', 'error'])],
    operands: { kind: 'command' },
  },
  {
    names: ['chrt', 'taskset'],
    language: 'command',
    syntax: 'posix',
    options: [...values('c', ['cpu-list'])],
    operands: { kind: 'command', skip: 1 },
  },
  {
    names: ['timeout'],
    language: 'command',
    syntax: 'posix',
    options: [...values('sk', ['signal', 'kill-after'])],
    operands: { kind: 'command', skip: 1 },
  },
  {
    names: ['chroot'],
    language: 'command',
    syntax: 'posix',
    options: [...values('', ['userspec', 'groups'])],
    operands: { kind: 'command', skip: 1 },
  },
  {
    names: ['flock'],
    language: 'command',
    // `flock FILE -c CMD`: flock reads `-c` after its file too
    syntax: 'getopt',
    options: [
      { short: 'c', long: 'command', ...code('script', 'runs its value as a shell command') },
      ...values('wEn', ['timeout', 'conflict-exit-code']),
    ],
    operands: { kind: 'command', skip: 1 },
  },
  {
    names: ['su', 'runuser'],
    language: 'shell',
    syntax: 'getopt',
    options: [
      { short: 'c', long: 'command', ...code('script', 'runs its value as a shell command') },
      { long: 'session-command', ...code('script', 'runs its value as a shell command') },
      { short: 's', long: 'shell', ...code('command', 'runs the program as the shell') },
      ...values('gGw', ['group', 'supp-group', 'whitelist-environment']),
    ],
  },
  {
    names: ['script'],
    language: 'shell',
    syntax: 'getopt',
    options: [
      { short: 'c', long: 'command', ...code('script', 'runs its value as a shell command') },
      { short: 'O', long: 'log-out', ...writes('writes the output to the file') },
      { short: 'I', long: 'log-in', ...writes('writes the input to the file') },
      { short: 'B', long: 'log-io', ...writes('writes the session to the file') },
      { short: 'T', long: 'log-timing', ...writes('writes timings to the file') },
      ...values('Em', ['echo', 'logging-format', 'output-limit']),
    ],
    operands: { kind: 'written', what: 'writes the session to the file' },
  },
  {
    names: ['watch'],
    language: 'shell',
    syntax: 'posix',
    options: [...values('dnq', ['interval', 'differences'])],
    operands: { kind: 'shell-command', what: 'runs its operands as a shell command' },
  },
  {
    names: ['parallel', 'sem'],
    language: 'shell',
    syntax: 'posix',
    options: [...values('jSaI', ['jobs', 'sshlogin', 'arg-file', 'joblog', 'results'])],
    operands: { kind: 'shell-command', what: 'runs its operands as a shell command' },
  },
  {
    names: ['ssh'],
    language: 'shell',
    syntax: 'posix',
    options: [
      ...SSH_OPTIONS,
      { short: 'E', ...writes('writes its log to the file') },
      ...values('BbcDeIiJLlmOpQRSWw'),
    ],
    // `ssh host cmd …`: the words after the host are one command line the remote shell runs
    operands: { kind: 'shell-command', skip: 1, what: 'runs its operands as a shell command on the host' },
  },
  {
    names: ['scp', 'sftp'],
    language: 'command',
    syntax: 'getopt',
    options: [
      ...SSH_OPTIONS,
      { short: 'S', ...code('command', 'runs the program instead of ssh') },
      { short: 'D', ...code('command', 'runs the program as the sftp server') },
      ...values('cilPJXBbs'),
    ],
  },
  {
    names: ['rsync'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { short: 'e', long: 'rsh', ...code('command', 'runs its value as the remote shell') },
      { long: 'rsync-path', ...code('command', 'runs its value as rsync on the other side') },
      { long: 'log-file', ...writes('writes its log to the file') },
      { long: 'write-batch', ...writes('writes a batch file') },
      { long: 'only-write-batch', ...writes('writes a batch file') },
      { long: 'backup-dir', ...writes('moves replaced files to the folder') },
      { long: 'partial-dir', ...writes('keeps partial files in the folder') },
      { long: 'temp-dir', ...writes('writes temporary files in the folder') },
      ...values('fBMT', ['filter', 'exclude', 'include', 'block-size', 'remote-option', 'chmod', 'chown']),
    ],
  },
  {
    names: ['tar', 'bsdtar', 'gtar'],
    language: 'command',
    syntax: 'getopt',
    dashlessBundle: true,
    options: [
      { long: 'to-command', ...code('command', 'runs its value for every extracted file') },
      { long: 'checkpoint-action', ...code('command', 'runs its value at checkpoints (exec=…)') },
      { short: 'I', long: 'use-compress-program', ...code('command', 'runs its value as the compressor') },
      { short: 'F', long: 'info-script', ...code('command', 'runs its value at the end of each volume') },
      { long: 'new-volume-script', ...code('command', 'runs its value at the end of each volume') },
      { long: 'rsh-command', ...code('command', 'runs its value as the remote shell') },
      { long: 'rmt-command', ...code('command', 'runs its value as rmt') },
      { short: 'f', long: 'file', ...writes('writes (or reads) the archive; host:file runs a remote shell') },
      { short: 'P', long: 'absolute-names', value: 'none', ...writes('extracts to absolute paths') },
      { long: 'index-file', ...writes('writes its listing to the file') },
      ...values('bCgHKLNTVX', ['directory', 'exclude', 'files-from', 'exclude-from', 'transform', 'format']),
    ],
  },
  {
    names: ['zip'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { short: 'T', long: 'test', value: 'none' },
      { word: '-TT', ...code('command', 'runs its value to test the archive') },
      { long: 'unzip-command', ...code('command', 'runs its value to test the archive') },
      { short: 'O', long: 'output-file', ...writes('writes the archive to the file') },
      ...values('bnPtxi', ['temp-path', 'exclude', 'include', 'password']),
    ],
  },
  {
    names: ['sort'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { long: 'compress-program', ...code('command', 'runs its value to compress temporary files') },
      { short: 'o', long: 'output', ...writes('writes the result to the file') },
      { short: 'T', long: 'temporary-directory', ...writes('writes temporary files in the folder') },
      ...values('kStS', ['key', 'field-separator', 'buffer-size', 'files0-from', 'parallel', 'batch-size']),
    ],
  },
  {
    names: ['tee'],
    language: 'command',
    syntax: 'getopt',
    options: [...values('', ['output-error'])],
    operands: { kind: 'written', what: 'writes its input to the file' },
  },
  {
    names: ['dd'],
    language: 'command',
    syntax: 'getopt',
    options: [{ word: 'of', ...writes('writes to the file') }],
  },
  {
    names: ['curl'],
    language: 'command',
    syntax: 'getopt',
    options: withCurlExpansion([
      { short: 'o', long: 'output', ...writes('writes the response to the file') },
      { short: 'O', long: 'remote-name', value: 'none', ...writes('writes the response to a file it names') },
      {
        long: 'remote-name-all',
        value: 'none',
        ...writes('writes each response to a file it names'),
      },
      {
        short: 'J',
        long: 'remote-header-name',
        value: 'none',
        ...writes('names the file from the response'),
      },
      { long: 'output-dir', ...writes('writes files in the folder') },
      { short: 'D', long: 'dump-header', ...writes('writes the headers to the file') },
      { short: 'c', long: 'cookie-jar', ...writes('writes cookies to the file') },
      { long: 'trace', ...writes('writes a trace to the file') },
      { long: 'trace-ascii', ...writes('writes a trace to the file') },
      { long: 'libcurl', ...writes('writes C source to the file') },
      { long: 'stderr', ...writes('writes errors to the file') },
      { long: 'etag-save', ...writes('writes the ETag to the file') },
      { long: 'hsts', ...writes('writes the HSTS cache to the file') },
      { long: 'alt-svc', ...writes('writes the Alt-Svc cache to the file') },
      { long: 'ssl-sessions', ...writes('writes the TLS session cache to the file') },
      {
        short: 'w',
        long: 'write-out',
        writtenIn: curlWriteOutFiles,
        ...writes('writes its output format to the file it names (%output{…})'),
      },
      { short: 'K', long: 'config', ...code('setting', 'reads options from the file (any of these)') },
      { long: 'engine', ...code('file', 'loads an OpenSSL engine, a shared library') },
      ...values('AbdEeFHmrTuUXxYyzCPQt', ['data', 'header', 'user', 'request', 'url']),
      ...values('', ['data-raw', 'data-binary', 'data-urlencode', 'form', 'max-time', 'proxy']),
    ]),
  },
  {
    names: ['wget'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { short: 'O', long: 'output-document', ...writes('writes the response to the file') },
      { short: 'o', long: 'output-file', ...writes('writes its log to the file') },
      { short: 'a', long: 'append-output', ...writes('appends its log to the file') },
      { short: 'P', long: 'directory-prefix', ...writes('writes files in the folder') },
      { long: 'save-cookies', ...writes('writes cookies to the file') },
      { long: 'save-headers', value: 'none' },
      { short: 'e', long: 'execute', ...code('setting', 'runs its value as a .wgetrc command') },
      { long: 'config', ...code('setting', 'reads .wgetrc commands from the file') },
      { long: 'use-askpass', ...code('command', 'runs its value to ask for a password') },
      ...values('iBtTwQUDIXAR', ['input-file', 'user', 'password', 'header', 'user-agent', 'tries']),
    ],
  },
  {
    names: ['gcc', 'cc', 'g++', 'c++', 'clang', 'clang++'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { short: 'o', ...writes('writes the output to the file') },
      { word: '-wrapper', ...code('command', 'runs the compiler under the program') },
      { word: '-fplugin', ...code('file', 'loads the plugin') },
      { word: '-specs', ...code('file', 'reads specs that can run programs') },
      { short: 'B', ...code('file', 'runs compiler programs from the folder') },
      ...values('IDULlxu'),
    ],
  },
  {
    names: ['go'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { word: '-toolexec', ...code('command', 'runs every tool under the program') },
      { word: '-exec', ...code('command', 'runs the test binary under the program') },
      { short: 'o', ...writes('writes the output to the file') },
    ],
  },
  {
    names: ['npm', 'npx', 'pnpm', 'yarn'],
    language: 'command',
    syntax: 'getopt',
    options: [
      { short: 'c', long: 'call', ...code('script', 'runs its value as a shell command') },
      { long: 'script-shell', ...code('command', 'runs scripts with the program') },
      { long: 'node-options', ...code('setting', 'passes options (--require) to node') },
    ],
    // npm's options are configuration, valid after any subcommand (`npm run x --script-shell=…`)
    subcommandsKeepOptions: true,
    subcommands: Object.fromEntries(
      ['exec', 'x', 'dlx', 'create', 'init'].map((name) => [
        name,
        {
          options: [],
          operands: { kind: 'command' },
          danger: 'code',
          what: 'runs another program (as npx does), possibly downloaded',
        } as const,
      ]),
    ),
  },
  {
    names: ['test', '['],
    language: 'command',
    syntax: 'getopt',
    options: [
      // bash evaluates the subscript of `NAME[…]` as arithmetic, which runs `$(…)` even from a quoted word
      { short: 'v', ...code('setting', 'evaluates the array subscript of the variable name (runs `$(…)`)') },
      { short: 'R', ...code('setting', 'evaluates the array subscript of the variable name (runs `$(…)`)') },
    ],
  },
  {
    names: ['make', 'gmake'],
    language: 'make',
    syntax: 'getopt',
    options: [
      { short: 'f', long: 'file', ...code('file', 'runs the recipes of the makefile') },
      { long: 'makefile', ...code('file', 'runs the recipes of the makefile') },
      { long: 'eval', ...code('script', 'evaluates its value as makefile text') },
      { short: 'E', ...code('script', 'evaluates its value as makefile text') },
      { short: 'C', long: 'directory', ...code('file', 'runs the makefile of the folder') },
      { short: 'I', long: 'include-dir', ...code('file', 'includes makefiles from the folder') },
      ...values('jlWoO', ['jobs', 'load-average', 'what-if', 'old-file', 'assume-old', 'output-sync']),
    ],
    operands: {
      kind: 'assignment-code',
      what: 'sets a make variable, which can name a program (SHELL=…, CC=…)',
    },
    implicitCode: ['Makefile', 'makefile', 'GNUmakefile'],
  },
  {
    names: ['git'],
    language: 'git',
    syntax: 'posix',
    options: [
      {
        short: 'c',
        ...code('setting', 'sets configuration that can name programs (core.pager, core.sshCommand)'),
      },
      { long: 'config-env', ...code('setting', 'sets configuration that can name programs') },
      { long: 'exec-path', value: 'optional', ...code('file', 'runs git programs from the folder') },
      ...values('C', ['git-dir', 'work-tree', 'namespace', 'super-prefix', 'list-cmds', 'attr-source']),
    ],
    subcommands: gitSubcommands(),
  },
];

function gitSubcommands(): Record<string, SubcommandEntry> {
  const output = { long: 'output', ...writes('writes the output to the file') } as const;
  const uploadPack = {
    long: 'upload-pack',
    ...code('command', 'runs its value as git-upload-pack'),
  } as const;
  const receivePack = {
    long: 'receive-pack',
    ...code('command', 'runs its value as git-receive-pack'),
  } as const;
  const exec = { long: 'exec', ...code('command', 'runs its value on the other side') } as const;
  const template = { long: 'template', ...code('file', 'copies hooks from the folder') } as const;
  const extDiff = {
    long: 'ext-diff',
    value: 'none',
    ...code('command', 'runs the configured external diff'),
  } as const;
  const textconv = {
    long: 'textconv',
    value: 'none',
    ...code('command', 'runs configured text filters'),
  } as const;
  const diffLike: SubcommandEntry = { options: [output, extDiff, textconv] };
  const filter = (name: string) =>
    ({
      long: `${name}-filter`,
      ...code('script', 'runs its value as a shell command for every commit'),
    }) as const;
  const outputFolder = {
    short: 'o',
    long: 'output-directory',
    ...writes('writes the report to the folder'),
  } as const;
  return {
    log: diffLike,
    diff: diffLike,
    show: diffLike,
    whatchanged: diffLike,
    // Every command that reads a revision range takes the diff options, `--output` among them (git 2.39 writes the
    // file for each of these).
    reflog: diffLike,
    stash: diffLike,
    shortlog: diffLike,
    'rev-list': diffLike,
    blame: diffLike,
    annotate: diffLike,
    pickaxe: diffLike,
    'cherry-pick': diffLike,
    revert: diffLike,
    'fast-export': diffLike,
    bugreport: { options: [outputFolder] },
    diagnose: { options: [outputFolder] },
    'diff-tree': diffLike,
    'diff-files': diffLike,
    'diff-index': diffLike,
    'range-diff': diffLike,
    'format-patch': {
      options: [
        output,
        { short: 'o', long: 'output-directory', ...writes('writes the patches to the folder') },
      ],
    },
    archive: {
      options: [{ short: 'o', long: 'output', ...writes('writes the archive to the file') }, exec],
    },
    clone: {
      options: [
        { short: 'u', ...uploadPack },
        uploadPack,
        template,
        { short: 'c', long: 'config', ...code('setting', 'sets configuration that can name programs') },
        { long: 'separate-git-dir', ...writes('writes the repository to the folder') },
      ],
    },
    init: {
      options: [template, { long: 'separate-git-dir', ...writes('writes the repository to the folder') }],
    },
    fetch: { options: [uploadPack] },
    pull: { options: [uploadPack] },
    'ls-remote': { options: [uploadPack, exec, { short: 'u', ...uploadPack }] },
    push: { options: [receivePack, exec] },
    'send-pack': { options: [receivePack, exec] },
    'fetch-pack': { options: [uploadPack, exec] },
    rebase: {
      options: [{ short: 'x', long: 'exec', ...code('script', 'runs its value as a shell command') }],
    },
    difftool: {
      options: [
        { short: 'x', long: 'extcmd', ...code('command', 'runs its value to show each diff') },
        { short: 't', long: 'tool', ...code('command', 'runs the named diff tool') },
      ],
    },
    mergetool: { options: [{ short: 't', long: 'tool', ...code('command', 'runs the named merge tool') }] },
    grep: {
      options: [
        {
          short: 'O',
          long: 'open-files-in-pager',
          value: 'optional',
          ...code('command', 'runs its value as the pager'),
        },
      ],
    },
    'filter-branch': {
      options: ['env', 'tree', 'index', 'parent', 'msg', 'commit', 'tag-name'].map(filter),
    },
    'send-email': {
      options: ['sendmail-cmd', 'to-cmd', 'cc-cmd', 'header-cmd', 'smtp-server'].map(
        (long) => ({ long, ...code('command', 'runs its value as a command') }) as const,
      ),
    },
    config: {
      options: [],
      danger: 'code',
      what: 'writes configuration that can name programs (core.pager …)',
    },
    bisect: {
      options: [],
      subcommands: { run: { options: [], operands: { kind: 'command' } } },
    },
    submodule: {
      options: [],
      subcommands: {
        foreach: {
          options: [],
          operands: { kind: 'shell-command', what: 'runs its operands as a shell command in each submodule' },
        },
      },
    },
    hook: { options: [], subcommands: { run: { options: [], danger: 'code', what: 'runs a hook' } } },
  };
}

const BY_NAME: ReadonlyMap<string, ProgramEntry> = new Map(
  PROGRAMS.flatMap((entry) => entry.names.map((name) => [name, entry] as const)),
);

/** Every program in the table (for documentation and tests). */
export const CODE_TAKING_PROGRAMS: readonly ProgramEntry[] = PROGRAMS;

/**
 * The table's entry for a command word: its basename (`/usr/bin/python3`), with a trailing version removed when
 * the exact name is not listed (`python3.12`, `perl5.36`, `python3`).
 */
export function programEntry(command: string): ProgramEntry | undefined {
  const base = command.slice(command.lastIndexOf('/') + 1);
  return BY_NAME.get(base) ?? BY_NAME.get(base.replace(/-?[\d.]+$/, ''));
}
