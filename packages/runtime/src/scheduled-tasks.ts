import type { ScheduledTask } from '@birdie/store';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { withUserStore } from './store-command.js';

// The user's scheduled tasks (`birdie tasks`): the model schedules them, `birdie start` runs them.

/** The user's tasks: the active ones, or all with `all`. */
export async function listTasks(
  io: RuntimeIo,
  flags: Flags,
  options: { all?: boolean } = {},
): Promise<ScheduledTask[]> {
  return withUserStore(io, flags, false, (store, userId) =>
    store.tasks.list(userId, { all: options.all === true }),
  );
}

/** Cancels an active task of the user by its number as typed; usage errors for a bad or unknown one. */
export async function cancelTask(io: RuntimeIo, flags: Flags, raw: string): Promise<number> {
  if (!/^[1-9]\d{0,15}$/.test(raw))
    throw new UsageError(`ID must be a task number (birdie tasks list), got "${raw}"`);
  const id = Number(raw);
  await withUserStore(io, flags, true, async (store, userId) => {
    if (!(await store.tasks.cancel(id, userId)))
      throw new UsageError(`no active task ${raw} of user ${userId}. Run \`birdie tasks list\`.`);
  });
  return id;
}
