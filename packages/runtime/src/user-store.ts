import type { Store } from '@birdie/store';
import { EXIT_RUN, RuntimeError, UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { WRITABLE_HINT } from './folders.js';
import type { RuntimeIo } from './io.js';
import { birdieHome } from './paths.js';
import { storeFailure } from './store-failure.js';

/**
 * The store, opened with errors a user can act on (bad ids, unreadable folder) as usage errors. A file or folder
 * birdie cannot write, or a damaged file, still opens, read-only: listing and showing sessions and the run log work.
 * With `BIRDIE_DATABASE_URL` (or `database_url` in the config) it is the PostgreSQL store instead, for every command.
 */
export async function openUserStore(io: RuntimeIo, values: Flags = {}): Promise<Store> {
  const { chooseDatabase } = await import('./database.js');
  const choice = await chooseDatabase(io, values);
  if (choice.kind === 'postgres') {
    const { openServerStore } = await import('./database-open.js');
    return openServerStore(choice);
  }
  const { openStore, StoreError } = await import('@birdie/store');
  const home = birdieHome(io.env);
  try {
    return openStore({ home });
  } catch (error) {
    // BIRDIE_HOME names a place no folder can be made (a file in the path, /proc/…): configuration, exit 2.
    if (error instanceof StoreError && error.code === 'home-unusable')
      throw new UsageError(`${error.message}. ${WRITABLE_HINT}`, { cause: error });
    if (error instanceof StoreError) throw storeFailure(error);
    // Anything else that stops the file from opening is the user's to fix, not a bug: say where and why, no stack.
    const cause = (error as { cause?: unknown }).cause;
    const reason = [error, cause]
      .filter((e): e is Error => e instanceof Error)
      .map((e) => e.message)
      .join(': ');
    throw new RuntimeError(
      `cannot open the birdie database in ${home}: ${reason || String(error)}`,
      EXIT_RUN,
      {
        cause: error,
      },
    );
  }
}
