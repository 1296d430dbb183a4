import type { Store } from '@birdie/store';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { checkUserId, requireWritable, userIdOf } from './runtime.js';
import { openUserStore } from './user-store.js';

/**
 * The store for one command that needs no runtime (no model, no registry): opened, used, closed. `write` refuses a
 * read-only store before anything is done.
 */
export async function withStore<T>(
  io: RuntimeIo,
  write: boolean,
  use: (store: Store) => Promise<T>,
): Promise<T> {
  const store = await openUserStore(io);
  try {
    if (write) requireWritable(store);
    return await use(store);
  } finally {
    await store.close();
  }
}

/** `withStore` as the user of `flags` (`--user`, else `$USER`), checked before the store is opened. */
export async function withUserStore<T>(
  io: RuntimeIo,
  flags: Flags,
  write: boolean,
  use: (store: Store, userId: string) => Promise<T>,
): Promise<T> {
  const userId = await checkUserId(userIdOf(io, flags));
  return withStore(io, write, (store) => use(store, userId));
}
