import { checkUserId, openUserStore, requireWritable, userIdOf } from '@birdie/runtime/runtime';
import { whenText } from '@birdie/runtime/task-book';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, UsageError, write } from '../io.js';
import { styler, table } from '../render/style.js';

/** `birdie tasks list`: the user's scheduled tasks (active ones unless `--all`). */
export async function tasksListCommand({ io, values }: CommandContext): Promise<number> {
  const userId = await checkUserId(userIdOf(io, values));
  const store = await openUserStore(io);
  try {
    const tasks = await store.tasks.list(userId, { all: values.all === true });
    if (values.json) {
      for (const task of tasks) write(io.stdout, JSON.stringify(task));
      return EXIT_OK;
    }
    if (tasks.length === 0) {
      write(
        io.stdout,
        'No scheduled tasks. The scheduler skill lets the model schedule some; `birdie start` runs them.',
      );
      return EXIT_OK;
    }
    const style = styler(io.stdout, io.env);
    io.stdout.write(
      table(
        tasks.map((t) => [
          String(t.id),
          t.status,
          whenText(t),
          t.agent ?? '-',
          t.prompt.split('\n')[0]!.slice(0, 60),
        ]),
        ['ID', 'STATUS', 'WHEN', 'AGENT', 'PROMPT'].map((h) => style('bold', h)),
      ),
    );
    return EXIT_OK;
  } finally {
    await store.close();
  }
}

/** `birdie tasks cancel ID`. */
export async function tasksCancelCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const raw = positionals[0]!;
  if (!/^[1-9]\d{0,15}$/.test(raw))
    throw new UsageError(`ID must be a task number (birdie tasks list), got "${raw}"`);
  const userId = await checkUserId(userIdOf(io, values));
  const store = await openUserStore(io);
  try {
    requireWritable(store);
    if (!(await store.tasks.cancel(Number(raw), userId)))
      throw new UsageError(`no active task ${raw} of user ${userId}. Run \`birdie tasks list\`.`);
    write(io.stdout, `Cancelled task ${raw}.`);
    return EXIT_OK;
  } finally {
    await store.close();
  }
}
