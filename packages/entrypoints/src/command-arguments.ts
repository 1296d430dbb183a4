/**
 * Which arguments of a simple command a `*` of an approval rule must never stand for: arguments that make the
 * program run code or write a file the user did not name. Two sources: programs that run their arguments as another
 * command (`env git …`, `xargs`, `sudo`, `timeout`, a shell): every argument is such an argument, so
 * `run_bash(env *)` allows `env` alone; and the code-taking and file-writing options of the table of programs that
 * run their arguments as code (`git log --output=…`, `find -exec`, `perl -e`).
 */
import { INTERIM_CODE_OPTIONS } from './command-arguments-interim.js';

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

/**
 * Whether `words[index]` (index ≥ 1) is an argument a `*` must not match: any argument of a command runner, or a
 * code-taking / file-writing option of the program (also written `--opt=value`, or inside a bundle of short
 * options such as `-le`).
 */
export function isCodeArgument(words: readonly string[], index: number): boolean {
  const program = programName(words[0] ?? '');
  if (COMMAND_RUNNERS.has(program)) return true;
  const word = words[index] ?? '';
  const options = INTERIM_CODE_OPTIONS.get(program);
  if (!options) return false;
  const name = word.startsWith('--') ? (word.split('=', 1)[0] ?? word) : word;
  if (options.has(name) || options.has(word)) return true;
  // `-le 'code'`: a bundle of one-letter options that holds a code-taking one.
  if (/^-[A-Za-z0-9]{2,}$/.test(word))
    for (const letter of word.slice(1)) if (options.has(`-${letter}`)) return true;
  // `-ecode` attached to its value.
  for (const option of options)
    if (/^-[A-Za-z]$/.test(option) && word.startsWith(option) && word.length > 2) return true;
  return false;
}
