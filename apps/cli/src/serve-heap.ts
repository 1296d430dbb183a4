import { setFlagsFromString } from 'node:v8';

/**
 * How much V8 lets the old generation outgrow what was live after the last full collection, in a long-running
 * `birdie serve`: 30 % (V8's own factor when it saves memory). V8's default picks the factor from how fast it
 * collects against how fast the program allocates, up to 4×; on a loaded machine its collector threads get less of
 * the CPU, so the same server held 2–4× its live heap and its memory followed the machine's load rather than its
 * own work (the RSS of issue 36's 5,000-turn run grew 1.3–1.8× after turn 1,000 on a live heap that grew 1.3×).
 * The price is more frequent full collections: a few percent of the worker's CPU per turn.
 */
export const SERVE_HEAP_GROWING_PERCENT = 30;

/**
 * The V8 flags `birdie serve` sets: none when node was started with its own `--heap-growing-percent`, on its command
 * line (`execArgv`) or in `NODE_OPTIONS` (which node does not list in `execArgv`).
 */
export function serveHeapFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = [...execArgv, ...nodeOptions.split(/\s+/)];
  const chosen = given.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg));
  return chosen ? [] : [`--heap-growing-percent=${SERVE_HEAP_GROWING_PERCENT}`];
}

/** Applies `serveHeapFlags` to this process (V8 reads the factor at each collection, so it applies from now on). */
export function applyServeHeapFlags(): void {
  for (const flag of serveHeapFlags(process.execArgv, process.env.NODE_OPTIONS)) setFlagsFromString(flag);
}
