import type { ScheduledTask } from '@birdie/store';
import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import { heldTasks } from './held-tasks.js';
import type { RuntimeIo } from './io.js';
import { withUserStore } from './store-command.js';
import { TaskOrigins } from './task-origins.js';

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
    // Only the server holds a task, and it fires only those scheduled through a server: any other is `birdie
    // start`'s, which fires it whatever the user's tokens (one whose origin cannot be read is neither's).
    const origins = new TaskOrigins(store);
    const servers: ScheduledTask[] = [];
    for (const task of tasks) {
      if (task.status !== 'active') continue;
      const session = await origins.serverSession(task).catch(() => undefined);
      if (session !== undefined) servers.push(task);
    }
    const held = await heldTasks(store, servers);
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
      throw new UsageError(
        `no active task ${raw} of user ${userId}. Run \`birdie tasks list${typeof flags.user === 'string' ? ` --user ${userId}` : ''}\`.`,
      );
  });
  return id;
}
