import { constants } from 'node:os';
import { PROTECTED_WORKSPACE_PATHS } from './sandbox-protected.js';

const NAMES = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * The sandbox's init reports a command killed by signal N as exit code 128 + N (as shells do): say so, since the
 * caller cannot tell it from a command that chose that code.
 */
export function signalNote(outcome: { exitCode: number | null; sandboxed: boolean }): string {
  const code = outcome.exitCode;
  if (!outcome.sandboxed || code === null || code <= 128) return '';
  const name = NAMES.get(code - 128);
  return name ? ` (in the sandbox, what a command killed by ${name} ends with)` : '';
}

/**
 * What a failed command's message adds after its status line when stdout and stderr were merged into its output:
 * nothing, since the output already holds stderr (and keeps its tail past the cap, where the cause usually is);
 * only an empty output is named, so the reader does not look for a block that is not there.
 */
export function mergedFailureNote(outcome: { output: string }): string {
  return outcome.output.trim() === '' ? '\n(no output)' : '';
}

const escaped = PROTECTED_WORKSPACE_PATHS.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
/** A protected path named as a path (`.git/index.lock`, `'.envrc'`), or the error a read-only mount gives. */
const WRITE_REFUSED = new RegExp(
  `Read-only file system|EROFS|(?:^|[\\s'"\`/(:])(?:${escaped.join('|')})(?=$|[\\s'"\`/):,])`,
  'm',
);

/**
 * What a failed sandboxed command's message adds when its output shows a write the sandbox refused: why, and what the
 * user does instead (git commit and checkout write .git, which stays read-only in the sandbox).
 */
export function sandboxWriteNote(outcome: { sandboxed: boolean }, text: string): string {
  if (!outcome.sandboxed || !WRITE_REFUSED.test(text)) return '';
  return (
    `\n(note: in the sandbox a command writes only in its working directory and a private /tmp, and ` +
    `${PROTECTED_WORKSPACE_PATHS.join(', ')} of the working directory stay read-only in the sandbox: other programs ` +
    'run them later, outside it. git commit, git checkout and other commands that write there fail here: ask the ' +
    'user to run them outside the sandbox, in a terminal of their own)'
  );
}
