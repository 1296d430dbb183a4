import type { ScheduledTask } from '@birdie/store';
import { UsageError } from './errors.js';
import { heldTasks } from './held-tasks.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { withUserStore } from './store-command.js';

// The user's scheduled tasks (`birdie tasks`): the model schedules them, `birdie start` runs them.

/** A task as `birdie tasks list` shows it: `held` says why `birdie serve` does not fire an active one. */
export type ListedTask = ScheduledTask & { held?: string };

/** The user's tasks: the active ones, or all with `all`; an active one `birdie serve` holds says why (`held`). */
export async function listTasks(
  io: RuntimeIo,
  flags: Flags,
  options: { all?: boolean } = {},
): Promise<ListedTask[]> {
  return withUserStore(io, flags, false, async (store, userId) => {
    const tasks = await store.tasks.list(userId, { all: options.all === true });
    const held = await heldTasks(
      store,
      tasks.filter((t) => t.status === 'active'),
    );
    return tasks.map((t) => {
      const why = held.get(t.id);
      return why === undefined ? t : { ...t, held: why };
    });
  });
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
