import { cancelTask, listTasks } from '@birdie/runtime/scheduled-tasks';
import { whenText } from '@birdie/runtime/task-book';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';
import { printList } from '../render/list.js';

/** `birdie tasks list`: the user's scheduled tasks (active ones unless `--all`). */
export async function tasksListCommand({ io, values }: CommandContext): Promise<number> {
  const tasks = await listTasks(io, values, { all: values.all === true });
  const code = printList(io, values, tasks, {
    empty: 'No scheduled tasks. The scheduler skill lets the model schedule some; `birdie start` runs them.',
    header: ['ID', 'STATUS', 'WHEN', 'AGENT', 'PROMPT'],
    row: (t) => [
      String(t.id),
      t.held !== undefined ? 'held' : t.status,
      whenText(t),
      t.agent ?? '-',
      t.prompt.split('\n')[0]!.slice(0, 60),
    ],
  });
  // Why a held task does not run (in --json, its `held` field says so).
  if (!values.json)
    for (const t of tasks) if (t.held) write(io.stderr, `birdie: task ${t.id} is held: ${t.held}`);
  return code;
}

/** `birdie tasks cancel ID`. */
export async function tasksCancelCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const id = await cancelTask(io, values, positionals[0]!);
  write(io.stdout, `Cancelled task ${id}.`);
  return EXIT_OK;
}
