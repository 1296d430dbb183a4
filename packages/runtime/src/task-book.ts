import type { NewTaskRequest, TaskBook, TaskRecord } from '@birdie/graph';
import { formatSeconds } from '@birdie/scheduler';
import type { Grants, ScheduledTask } from '@birdie/store';
import { parseIsoTime, roughDuration } from './iso-time.js';
import type { Runtime } from './runtime.js';

/** How a task's timing reads: `every 1h` (as an agent file writes it), `schedule 0 9 * * * (UTC)`, `at 2026-…`. */
export function whenText(t: ScheduledTask): string {
  if (t.schedule !== undefined) return `schedule ${t.schedule}${t.timezone ? ` (${t.timezone})` : ''}`;
  if (t.every !== undefined) return `every ${formatSeconds(t.every)}`;
  return `at ${t.at?.toISOString() ?? '-'}`;
}

/** How far in the past an `at` may be and still be taken (it runs at once): the time it took to ask for it. */
export const AT_GRACE_MS = 60_000;

function record(t: ScheduledTask): TaskRecord {
  return { id: String(t.id), when: whenText(t), prompt: t.prompt, ...(t.agent ? { agent: t.agent } : {}) };
}

/** Where the model schedules from: the run, its session and that session's user. */
export interface TaskSource {
  runId: number;
  /** The session's user, who may not be the process's own (`birdie serve`, `birdie mcp --http`). */
  userId: string;
  /**
   * The scheduling session: the task keeps it, so one scheduled through a server stays the server's after that
   * session (and the run) is deleted.
   */
  sessionId: string;
  /**
   * The scheduling session's skill grants as they are when a task is made: the task keeps them, so `birdie start`
   * runs it with the skills the user enabled where they approved it (not only those the settings enable).
   */
  grants?: () => Grants;
}

/**
 * The user's scheduled tasks as the builtin task tools see them. A request the model got wrong throws an Error whose
 * message tells it what to fix; a task remembers the run that scheduled it.
 */
export function taskBook(
  rt: Pick<Runtime, 'store' | 'registry' | 'scheduledTaskNote'>,
  from: TaskSource,
): TaskBook {
  const { store } = rt;
  const { runId, userId, sessionId, grants } = from;
  return {
    list: async () => (await store.tasks.list(userId)).map(record),
    async create(request: NewTaskRequest) {
      const given = (['schedule', 'every', 'at'] as const).filter((k) => request[k] !== undefined);
      if (given.length !== 1)
        throw new Error(`Give exactly one of schedule, every and at (got ${given.join(', ') || 'none'}).`);
      // The parser's timing rules (agent triggers use the same), loaded when a task is made, not with every turn.
      const { cronProblem, knownTimeZone, parseDuration } = await import('@birdie/skill-parser');
      if (request.schedule !== undefined) {
        const problem = cronProblem(request.schedule);
        if (problem) throw new Error(`"${request.schedule}" is not a cron expression: ${problem}`);
      }
      if (request.timezone !== undefined) {
        if (request.schedule === undefined) throw new Error('timezone goes with schedule only.');
        if (!knownTimeZone(request.timezone))
          throw new Error(`"${request.timezone}" is not an IANA time zone (e.g. "Europe/Berlin", "UTC").`);
      }
      let every: number | undefined;
      if (request.every !== undefined) {
        every = parseDuration(request.every);
        if (every === undefined || every < 60)
          throw new Error(
            `every: "${request.every}" is not an interval of at least one minute (e.g. 30m, 2h, 1d).`,
          );
      }
      let at: Date | undefined;
      if (request.at !== undefined) {
        const parsed = parseIsoTime(request.at, { zoned: true });
        if (!parsed.ok)
          throw new Error(
            parsed.problem === 'not ISO 8601'
              ? `at: "${request.at}" is not an ISO 8601 time with an offset (e.g. 2026-12-01T09:00:00+01:00).`
              : `at: "${request.at}" is not a time: ${parsed.problem}.`,
          );
        at = parsed.date;
        const late = Date.now() - at.getTime();
        if (late > AT_GRACE_MS)
          throw new Error(
            `at: "${request.at}" is ${roughDuration(late)} in the past (it is ${new Date().toISOString()} now); give a future time.`,
          );
      }
      if (request.agent !== undefined && !rt.registry.current().getAgent(request.agent))
        throw new Error(
          `There is no agent "${request.agent}" (agents: ${
            rt.registry
              .current()
              .agents.map((a) => a.name)
              .join(', ') || 'none'
          }).`,
        );
      const task = await store.tasks.create({
        userId,
        prompt: request.prompt,
        createdByRun: runId,
        originSession: sessionId,
        ...(grants ? { grants: grants() } : {}),
        ...(request.agent !== undefined ? { agent: request.agent } : {}),
        ...(request.schedule !== undefined ? { schedule: request.schedule } : {}),
        ...(request.timezone !== undefined ? { timezone: request.timezone } : {}),
        ...(every !== undefined ? { every } : {}),
        ...(at ? { at } : {}),
      });
      const made = record(task);
      const note = rt.scheduledTaskNote?.(made.id);
      return note === undefined ? made : { ...made, howItRuns: note };
    },
    cancel: async (id) => /^\d+$/.test(id) && (await store.tasks.cancel(Number(id), userId)),
  };
}
