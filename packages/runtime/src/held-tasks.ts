import type { ScheduledTask, Store } from '@birdie/store';

// `birdie serve` refuses a task of a user whose every API token was revoked: the firing is a `rejected` run. A
// recurring task would be refused, and logged, at every due time, forever; instead its first refusal since the
// revocation is logged and the task is held: not fired while the user stays revoked. Nothing new is stored for it: the
// hold is read from the tokens (the user's standing, when they were revoked) and the run log (the refusal), so every
// worker of one database, and a restarted server, agree on it, and a token of theirs lifts it as it lifts the refusal.

/** Enough rejected runs to find a task's refusal among those of one revoked user (who runs nothing else). */
const REFUSALS_READ = 500;

/** The user's most recent revocation: when their last token was revoked; undefined when none was. */
async function revokedSince(store: Pick<Store, 'tokens'>, userId: string): Promise<Date | undefined> {
  const revoked = await store.tokens.list(userId, { revoked: true });
  const times = revoked.flatMap((t) => (t.revokedAt ? [t.revokedAt.getTime()] : []));
  return times.length ? new Date(Math.max(...times)) : undefined;
}

/** Why a held task does not run, and how the operator ends that. */
export function heldReason(task: ScheduledTask, runId: number): string {
  return `every API token of ${task.userId} was revoked: birdie serve refused its firing (run ${runId}) and fires it no more until ${task.userId} has a token again (birdie tokens create --user ${task.userId}); or cancel it (birdie tasks cancel ${task.id} --user ${task.userId})`;
}

/**
 * The tasks among `tasks` that `birdie serve` holds, each with why: those of a user whose every API token was revoked
 * with a firing refused since their last revocation. A task of a revoked user not refused yet is not held: its next
 * firing is refused and logged, once.
 */
export async function heldTasks(
  store: Pick<Store, 'tokens' | 'runs'>,
  tasks: readonly ScheduledTask[],
): Promise<Map<number, string>> {
  const held = new Map<number, string>();
  const users = [...new Set(tasks.map((t) => t.userId))];
  for (const userId of users) {
    if ((await store.tokens.standing(userId)) !== 'revoked') continue;
    const since = await revokedSince(store, userId);
    if (!since) continue;
    const refused = await store.runs.list({ userId, status: 'rejected', since, limit: REFUSALS_READ });
    for (const task of tasks) {
      if (task.userId !== userId) continue;
      // The run log names a task's runs `task N (every 1m)`: the newest refusal of this one, if any.
      const run = refused.find((r) => r.trigger?.startsWith(`task ${task.id} (`));
      if (run) held.set(task.id, heldReason(task, run.id));
    }
  }
  return held;
}
