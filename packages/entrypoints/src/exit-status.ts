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
