/**
 * Which arguments of a simple command a `*` of an approval rule must never stand for: arguments that make the
 * program run code or write a file the user did not name. Two sources: programs that run their arguments as another
 * command (`env git …`, `xargs`, `sudo`, `timeout`, a shell): every argument is such an argument, so
 * `run_bash(env *)` allows `env` alone; and the code-taking and file-writing options of the table of programs that
 * run their arguments as code (`git log --output=…`, `find -exec`, `perl -e`).
 */
import { readArgv } from './code-taking-argv.js';

/** Programs whose arguments name another command to run (or are code): a `*` after them matches nothing. */
export const COMMAND_RUNNERS: ReadonlySet<string> = new Set([
  'env',
  'command',
  'builtin',
  'exec',
  'xargs',
  'parallel',
  'sudo',
  'doas',
  'su',
  'runuser',
  'sg',
  'newgrp',
  'pkexec',
  'nice',
  'ionice',
  'chrt',
  'taskset',
  'timeout',
  'nohup',
  'setsid',
  'stdbuf',
  'time',
  'strace',
  'ltrace',
  'watch',
  'flock',
  'chroot',
  'nsenter',
  'unshare',
  'script',
  'busybox',
  'firejail',
  'bwrap',
  'systemd-run',
  'dbus-launch',
  'ssh',
  'npx',
  'bunx',
  'sh',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'fish',
  'csh',
  'tcsh',
]);

function programName(word: string): string {
  const slash = word.lastIndexOf('/');
  return slash < 0 ? word : word.slice(slash + 1);
}

/** The dangerous indices of an argv, read once per argv (a pattern match asks about each word). */
const dangerous = new WeakMap<readonly string[], ReadonlySet<number>>();

/**
 * Whether `words[index]` (index ≥ 1) is an argument a `*` must not match: any argument of a command runner, or a
 * code-taking / file-writing option or operand of the program as the code-taking table reads its argv (bundles,
 * glued values, abbreviations, subcommands: `git log --outp=F`, `perl -ne CODE`, `find . -exec …`, `tee FILE`,
 * `test -v NAME`), or a word of a command the program runs (`git bisect run CMD …`, `npm exec -- CMD …`).
 */
export function isCodeArgument(words: readonly string[], index: number): boolean {
  if (COMMAND_RUNNERS.has(programName(words[0] ?? ''))) return true;
  let set = dangerous.get(words);
  if (!set) {
    const roles = readArgv(words);
    const found = new Set(roles.flatMap((role) => (role.danger ? [role.index] : [])));
    // A program the command runs (`git bisect run CMD`, `npm exec -- CMD`, `find -exec CMD`): it and its
    // arguments are another program's argv, which a `*` written for this program never stands for.
    const nested = roles.find((role) => role.role === 'program' && role.index > 0);
    if (nested) for (let i = nested.index; i < words.length; i++) found.add(i);
    dangerous.set(words, found);
    set = found;
  }
  return set.has(index);
}

/**
 * Where the command the program runs starts in its argv (`git bisect run CMD …`, `npm exec -- CMD …`,
 * `find . -exec CMD … ;`), as the code-taking table reads it; undefined when it runs none. A deny or ask rule sees
 * that command as well as the program's own.
 */
export function nestedCommandIndex(words: readonly string[]): number | undefined {
  return readArgv(words).find((role) => role.role === 'program' && role.index > 0)?.index;
}
