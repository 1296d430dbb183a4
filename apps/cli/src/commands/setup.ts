import type { CommandContext } from '../command-context.js';
import { EXIT_OK, UsageError, write } from '../io.js';

/** `birdie setup`: the first-run wizard, on demand, to change the provider or a key that stopped working. */
export async function setupCommand({ io }: CommandContext): Promise<number> {
  if (!io.stdin.isTTY || !io.stdout.isTTY) {
    throw new UsageError(
      'birdie setup needs a terminal. In scripts, write ~/.birdie/config.json or set LLM_VENDOR and the key variable.',
    );
  }
  const { firstRunSetup } = await import('../setup.js');
  await firstRunSetup(io, { again: true });
  write(io.stdout, 'Run `birdie` to start.');
  return EXIT_OK;
}
