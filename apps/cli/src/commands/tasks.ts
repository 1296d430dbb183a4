import { cancelTask, listTasks } from '@birdie/runtime/scheduled-tasks';
import { whenText } from '@birdie/runtime/task-book';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';
import { styler, table } from '../render/style.js';

/** `birdie tasks list`: the user's scheduled tasks (active ones unless `--all`). */
export async function tasksListCommand({ io, values }: CommandContext): Promise<number> {
  const tasks = await listTasks(io, values, { all: values.all === true });
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
}

/** `birdie tasks cancel ID`. */
export async function tasksCancelCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const id = await cancelTask(io, values, positionals[0]!);
  write(io.stdout, `Cancelled task ${id}.`);
  return EXIT_OK;
}
