/**
 * Polls `done` until it holds: a bounded wait (240 polls 250 ms apart by default), not a timing. On giving up it
 * throws naming `what`, with `context()` (a process's stderr, say) to show why.
 */
export async function until(
  what: string,
  done: () => boolean | Promise<boolean>,
  options: { context?: () => string; everyMs?: number; polls?: number } = {},
): Promise<void> {
  const { everyMs = 250, polls = 240 } = options;
  for (let i = 0; i < polls; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`${what}: not within ${(everyMs * polls) / 1000} s\n${options.context?.() ?? ''}`);
}
