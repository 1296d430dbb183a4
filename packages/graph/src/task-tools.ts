import type { TaskBook, TaskRecord } from './types.js';

interface TaskBuiltin {
  parameters: Record<string, unknown>;
  /** Scheduling and cancelling ask first (unless the turn's mode is `never`); listing follows the skill. */
  writes: boolean;
  execute(args: Record<string, unknown>, tasks: TaskBook): Promise<string>;
}

const line = (t: TaskRecord) =>
  `- [${t.id}] ${t.when}${t.agent ? ` (agent ${t.agent})` : ''}: ${t.prompt.replace(/\s+/g, ' ').trim()}`;

const text = (value: unknown) =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/**
 * The builtin task tools (`schedule_task`, `list_tasks`, `cancel_task`): the user's scheduled tasks, which
 * `birdie start` runs. Their schemas are fixed here, like the memory builtins'.
 */
export const TASK_BUILTINS: Readonly<Record<string, TaskBuiltin>> = Object.freeze({
  schedule_task: {
    writes: true,
    parameters: {
      type: 'object',
      properties: {
        prompt: { type: 'string', description: 'What the agent is told when the task runs' },
        schedule: {
          type: 'string',
          description: 'A cron expression, e.g. "0 9 * * 1-5" (give one of schedule, every, at)',
        },
        timezone: { type: 'string', description: 'The IANA time zone of schedule, e.g. "Europe/Berlin"' },
        every: { type: 'string', description: 'An interval such as "30m", "2h", "1d"' },
        at: {
          type: 'string',
          description: 'One future time, ISO 8601 with an offset, e.g. "2026-12-01T09:00:00+01:00"',
        },
        agent: { type: 'string', description: 'The agent that runs it (default: the default agent)' },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
    async execute(args, tasks) {
      const prompt = text(args.prompt);
      if (!prompt) throw new Error('Nothing to schedule: prompt is empty.');
      const request = {
        prompt,
        ...Object.fromEntries(
          (['schedule', 'timezone', 'every', 'at', 'agent'] as const).flatMap((k) => {
            const v = text(args[k]);
            return v === undefined ? [] : [[k, v]];
          }),
        ),
      };
      const task = await tasks.create(request);
      const how =
        task.howItRuns ??
        `\`birdie start\` runs it; \`birdie tasks cancel ${task.id}\` or cancel_task stops it.`;
      return `Scheduled task [${task.id}]: ${task.when}. ${how}`;
    },
  },
  list_tasks: {
    writes: false,
    parameters: { type: 'object', properties: {}, additionalProperties: false },
    async execute(_args, tasks) {
      const all = await tasks.list();
      return all.length === 0 ? 'No tasks are scheduled.' : all.map(line).join('\n');
    },
  },
  cancel_task: {
    writes: true,
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'The id in brackets that list_tasks shows, e.g. "3"' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    async execute(args, tasks) {
      const id = String(args.id).trim();
      if (!(await tasks.cancel(id))) throw new Error(`No scheduled task has the id ${JSON.stringify(id)}.`);
      return `Cancelled task [${id}].`;
    },
  },
});
