import { constants } from 'node:os';

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
