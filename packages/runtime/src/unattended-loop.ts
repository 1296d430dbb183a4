import type { Firing, SchedulerEvent, SkipReason, Trigger } from '@birdie/scheduler';
import type { ScheduledTask } from '@birdie/store';
import { withoutHolder } from '@birdie/store/errors';
import { AgentHolds, type AgentRefusal } from './agent-holds.js';
import type { DiagnosticLike } from './diagnostics.js';
import { didYouMean } from './did-you-mean.js';
import { UsageError } from './errors.js';
import { type Runtime, requireWritable } from './runtime.js';
import { agentDirectories } from './skills.js';
import { SkillsHolds } from './skills-holds.js';
import {
  agentTrigger,
  runTriggered,
  TASK_PREFIX,
  type TaskPlace,
  type TriggeredRun,
  taskTrigger,
} from './unattended.js';
import { unattendedNotices } from './unattended-grants.js';

/** How often the loop looks for tasks scheduled since (by `birdie tasks` or the model's `schedule_task`). */
const TASK_POLL_MS = 10_000;

/**
 * What the unattended loop reports, for a front end to log. `name` is the agent's name, or `task N` for a scheduled
 * task; `id` is the scheduler's trigger id.
 */
export type UnattendedEvent =
  /** The loaded agents' and skills' problems: at start, and after each reload of the agent files. */
  | { type: 'skill-problems'; messages: readonly DiagnosticLike[] }
  /**
   * Before the first run of an agent's trigger or a task (and after a reload): the agent's `skills` that are off for
   * its runs (which are refused: see `skillsOffMessage`), or a task that keeps no grants (`skills` empty). `message`
   * says which, and how to enable them.
   */
  | { type: 'skills-off'; name: string; skills: string[]; message: string }
  /** Something the loop says of a task once, that is no failure: e.g. a task it leaves to `birdie serve`. */
  | { type: 'notice'; name: string; message: string }
  | { type: 'run-start'; name: string; firing: Firing; sessionId: string }
  | { type: 'run-end'; name: string; firing: Firing; run: TriggeredRun; durationMs: number }
  // `id` is the scheduler's id of a trigger (`task-3` for a task), `name` how the other events name it (`task 3`).
  | { type: 'skipped'; id: string; name: string; label: string; dueAt: Date; reason: SkipReason }
  | { type: 'queued'; id: string; name: string; label: string }
  /** A trigger's run failed outside the turn (`id`, `name`), or a reload failed (neither). */
  | { type: 'error'; id?: string; name?: string; error: string }
  /** The agent files changed and were read again: the triggers now scheduled (ids, and names as above). */
  | { type: 'reloaded'; ids: string[]; names: string[] };

export interface UnattendedOptions {
  onEvent(event: UnattendedEvent): void;
  /** How often to look for new or changed tasks (default 10 s). */
  taskPollMs?: number;
}

/** What `startUnattended` runs, when it is not the runtime's user's agents and tasks in its folder (`birdie start`). */
export interface UnattendedSource {
  /** The active tasks to run (default: the runtime's user's). */
  tasks(): Promise<ScheduledTask[]>;
  /** Whether the loaded agents' triggers run too (default true). */
  agents: boolean;
  /**
   * Where each task runs (default: the runtime's folder, as its own user); `held`: this firing is not run, nor logged
   * (the source holds the task, and leaves it out of `tasks` once asked again).
   */
  placeOf?(task: ScheduledTask): Promise<TaskPlace | { held: string }>;
  /** Why a task's agent may not run here although a file defines it (a server's `serve.agents`); such a task is held. */
  agentRefusal?: AgentRefusal;
  /** The tasks are every user's (a server's): the commands a notice names take `--user`. */
  everyUser?: boolean;
}

/** One scheduled trigger as the loop started with it: who runs, on what, and when next (none for a `watch`). */
export interface ScheduledTrigger {
  name: string;
  trigger: Trigger;
  next?: Date;
}

export interface UnattendedLoop {
  /** The triggers scheduled at start, agents (by name) then tasks. */
  readonly scheduled: readonly ScheduledTrigger[];
  /** The tasks held at start (`task N`, said in a notice each), left out of `scheduled`. */
  readonly held: readonly string[];
  /** Runs active now. */
  readonly running: number;
  /** Stops watching and polling, lets active runs finish for up to `graceMs`, then cancels them. */
  stop(graceMs: number): Promise<void>;
}

/** The triggers of every agent that has some, and of the user's active tasks. */
function triggersOf(rt: Runtime, tasks: readonly ScheduledTask[], withAgents = true): Trigger[] {
  if (!withAgents) return tasks.map(taskTrigger);
  const agents = rt.registry
    .current()
    .agents.flatMap((agent) => agentTrigger(agent, rt.cwd) ?? [])
    .sort((a, b) => a.id.localeCompare(b.id));
  return [...agents, ...tasks.map(taskTrigger)];
}

/** The agents' trigger ids among `triggers` (an agent's id is its name). */
const agentIds = (triggers: readonly Trigger[]) =>
  triggers.filter((t) => !t.id.startsWith(TASK_PREFIX)).map((t) => t.id);

/** Says, for each of these agents and tasks, the skills its runs lack (which refuses them), before they run. */
function reportSkillsOff(
  rt: Runtime,
  onEvent: UnattendedOptions['onEvent'],
  agents: readonly string[],
  tasks: readonly ScheduledTask[],
): void {
  for (const notice of unattendedNotices(rt, agents, tasks)) onEvent({ type: 'skills-off', ...notice });
}

/** The triggers the scheduler runs: those it did not refuse. */
const running = (triggers: readonly Trigger[], refused: ReadonlyArray<{ trigger: Trigger }>) =>
  triggers.filter((t) => !refused.some((r) => r.trigger.id === t.id));

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * A task's record is read by its user (`GET /v1/tasks` on a shared server): a busy or taken-over session is said
 * without the process and the machine that held it; the run log keeps those (see `withoutHolder`).
 */
export const taskErrorText = (error: unknown) =>
  error instanceof Error ? withoutHolder((error as { code?: string }).code, error.message) : String(error);

/** What a task records of a run that did not end `ok`: its status, its error, and the run to look up. */
export const taskFailureText = (result: TriggeredRun['result']) =>
  `${result.status}${result.error ? `: ${withoutHolder(result.errorCode, result.error)}` : ''}${result.runId !== undefined ? ` (run ${result.runId})` : ''}`;

/**
 * What the log says of a trigger the scheduler refused (its timing cannot run): the agent or task, why, and how to
 * mend it. A task's timing was checked when the model scheduled it: a bad one was stored by another writer.
 */
function notScheduled(name: string, why: string, task: ScheduledTask | undefined): string {
  const mend = task
    ? `cancel it (birdie tasks cancel ${task.id}) and schedule it again`
    : 'fix its agent file (birdie agents check shows what is wrong)';
  return `${name} is not scheduled: ${why}; ${mend}. The others run.`;
}

/**
 * The scheduler of one runtime: every firing runs through `runTriggered` (a new session, refused approvals), a
 * one-shot task is finished after its run, and the scheduler's own events become `UnattendedEvent`s.
 */
async function schedulerOf(
  rt: Runtime,
  getTasks: () => readonly ScheduledTask[],
  options: UnattendedOptions,
  placeOf?: UnattendedSource['placeOf'],
  /** Asks the source for its tasks again (after a refused or held firing: the source may now leave the task out). */
  lookAgain: () => void = () => undefined,
  /** Triggers held after a refusal for skills that are off (see `SkillsHolds`), and what to do when one is held. */
  skills?: { holds: SkillsHolds; held: (id: string, name: string, outcome: TriggeredRun) => void },
) {
  const { isSchedulerError, Scheduler } = await import('@birdie/scheduler');
  const { onEvent } = options;
  let failures = 0;
  const taskOf = (id: string) =>
    id.startsWith(TASK_PREFIX) ? getTasks().find((t) => `${TASK_PREFIX}${t.id}` === id) : undefined;
  const nameOf = (id: string) => {
    const task = taskOf(id);
    return task ? `task ${task.id}` : id;
  };
  const run = async (firing: Firing) => {
    // Held since it was scheduled (it leaves the schedule once the source is asked again): not fired, nor logged.
    if (skills?.holds.has(firing.trigger.id)) return;
    const reading = skills?.holds.reading ?? 0;
    const task = taskOf(firing.trigger.id);
    const agent = task ? task.agent : firing.trigger.id;
    const name = nameOf(firing.trigger.id);
    const started = Date.now();
    // A one-time task ends with its only run: `failed` (not retried) when that run did not end `ok`.
    const finishOnce = async (error?: string) => {
      if (task?.at !== undefined) await rt.store.tasks.finish(task.id, error !== undefined ? { error } : {});
    };
    let outcome: TriggeredRun;
    let refused = false;
    try {
      const place = task && placeOf ? await placeOf(task) : undefined;
      if (place && 'held' in place) return lookAgain();
      refused = place?.refusal !== undefined;
      outcome = await runTriggered(rt, firing, {
        ...(agent !== undefined ? { agent } : {}),
        ...(task ? { task } : {}),
        ...(place ? { place } : {}),
        onStart: ({ sessionId }) => onEvent({ type: 'run-start', name, firing, sessionId }),
      });
    } catch (error) {
      await finishOnce(taskErrorText(error));
      throw error;
    }
    const { result } = outcome;
    await finishOnce(result.status === 'ok' ? undefined : taskFailureText(result));
    if (outcome.result.status !== 'ok') failures++;
    onEvent({ type: 'run-end', name, firing, run: outcome, durationMs: Date.now() - started });
    if (refused) lookAgain();
    // Not an agent's own trigger with `session: keep`: its kept session's grants may be changed elsewhere (the REPL).
    const keep = !task && rt.registry.current().getAgent(firing.trigger.id)?.triggers?.session === 'keep';
    if (
      outcome.skillsOff &&
      task?.at === undefined &&
      !keep &&
      skills?.holds.hold(firing.trigger.id, reading)
    )
      skills.held(firing.trigger.id, name, outcome);
  };
  const onSchedulerEvent = (event: SchedulerEvent) => {
    if (event.type === 'skipped')
      onEvent({
        type: 'skipped',
        id: event.trigger.id,
        name: nameOf(event.trigger.id),
        label: event.label,
        dueAt: event.dueAt,
        reason: event.reason,
      });
    else if (event.type === 'queued')
      onEvent({ type: 'queued', id: event.trigger.id, name: nameOf(event.trigger.id), label: event.label });
    else if (event.type === 'error')
      onEvent({
        type: 'error',
        id: event.trigger.id,
        name: nameOf(event.trigger.id),
        error: isSchedulerError(event.error, 'invalid-trigger')
          ? notScheduled(nameOf(event.trigger.id), event.error.message, taskOf(event.trigger.id))
          : errorText(event.error),
      });
    else if (event.type === 'run-end' && event.error)
      onEvent({
        type: 'error',
        id: event.firing.trigger.id,
        name: nameOf(event.firing.trigger.id),
        error: errorText(event.error),
      });
  };
  const scheduler = new Scheduler({ store: rt.store, run, onEvent: onSchedulerEvent });
  return { scheduler, nameOf, failures: () => failures };
}

/**
 * Runs one agent's trigger now (`birdie start --once AGENT`) and resolves when its run ended: how many runs did not
 * end `ok`. Aborting `signal` cancels the run. Usage errors: no such agent, or one without a trigger.
 */
export async function runAgentNow(
  rt: Runtime,
  name: string,
  options: UnattendedOptions & { signal?: AbortSignal },
): Promise<{ failures: number }> {
  requireWritable(rt.store);
  options.onEvent({ type: 'skill-problems', messages: rt.registry.messages });
  const found = rt.registry.current().getAgent(name);
  const trigger = found ? agentTrigger(found, rt.cwd) : undefined;
  if (!trigger) {
    const names = triggersOf(rt, []).map((t) => t.id);
    throw new UsageError(
      found
        ? `--once: agent "${name}" has no trigger (schedule, every or watch)`
        : `--once: no agent "${name}".${didYouMean(name, names)} Agents with triggers: ${names.join(', ') || 'none'}`,
    );
  }
  reportSkillsOff(rt, options.onEvent, [trigger.id], []);
  const { scheduler, failures } = await schedulerOf(rt, () => [], options);
  const cancel = () => void scheduler.stop({ graceMs: 0 });
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    await scheduler.fireNow(trigger);
  } finally {
    options.signal?.removeEventListener('abort', cancel);
  }
  return { failures: failures() };
}

/**
 * Starts running the user's agents on their triggers and the user's scheduled tasks (`birdie start`), until `stop`.
 * The agent folders are watched (a changed agent file reschedules) and the tasks polled (a task scheduled since is
 * picked up). Every run is a new session of `rt`'s user; nobody is there to approve, so only pre-approved calls run.
 */
export async function startUnattended(
  rt: Runtime,
  options: UnattendedOptions,
  source: UnattendedSource = { tasks: () => rt.store.tasks.list(rt.userId), agents: true },
): Promise<UnattendedLoop> {
  requireWritable(rt.store);
  const { onEvent } = options;
  const withAgents = source.agents;
  if (withAgents) onEvent({ type: 'skill-problems', messages: rt.registry.messages });
  // A recurring task whose agent is not there is held, not fired (see agent-holds); `raw` is what the source said.
  const holds = new AgentHolds(
    rt,
    (task, why) =>
      onEvent({ type: 'notice', name: `task ${task.id}`, message: `task ${task.id} is held: ${why}` }),
    {
      ...(source.agentRefusal ? { refusal: source.agentRefusal } : {}),
      withUser: source.everyUser === true,
      watched: withAgents,
    },
  );
  let raw = await source.tasks();
  let tasks = holds.schedulable(raw);
  const heldAtStart = holds.held.map((id) => `task ${id}`);
  // A trigger whose firing was refused because its agent's skills are off (see skills-holds).
  const skillsHeld = new SkillsHolds();
  const schedulable = () => triggersOf(rt, tasks, withAgents).filter((t) => !skillsHeld.has(t.id));
  let lookAgain: () => void = () => undefined;
  const { scheduler, nameOf } = await schedulerOf(
    rt,
    () => tasks,
    options,
    source.placeOf,
    () => lookAgain(),
    {
      holds: skillsHeld,
      held: (_id, name, outcome) => {
        const run = outcome.result.runId !== undefined ? ` (run ${outcome.result.runId})` : '';
        onEvent({
          type: 'notice',
          name,
          message: `${name} is held: its firing was refused${run} because its agent's skills are off for its runs (the run's error says which, and how to enable them); it is not fired again ${withAgents ? 'until its agent file changes so that none of them is needed, or birdie start restarts' : 'until the server restarts'}`,
        });
        lookAgain();
      },
    },
  );
  /** Of the held triggers, those the agent files and settings read now still refuse (the check before a first run). */
  const stillRefused = (held: readonly string[]): Set<string> => {
    const agents = held.filter((id) => !id.startsWith(TASK_PREFIX));
    const heldTasks = tasks.filter((t) => held.includes(`${TASK_PREFIX}${t.id}`));
    const off = new Set(
      unattendedNotices(rt, agents, heldTasks)
        .filter((n) => n.skills.length > 0)
        .map((n) => n.name),
    );
    return new Set(held.filter((id) => off.has(nameOf(id))));
  };
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    for (const close of closers.splice(0)) await close();
  };
  const reported = new Set<number>();
  const reportTasks = () => {
    const fresh = tasks.filter((task) => !reported.has(task.id));
    for (const task of fresh) reported.add(task.id);
    return fresh;
  };
  try {
    const triggers = schedulable();
    // Said before the first run: a run already due starts with `update`.
    reportSkillsOff(rt, onEvent, agentIds(triggers), reportTasks());
    // A trigger that cannot run is left out (the scheduler said why); the others run.
    const { refused } = await scheduler.update(triggers);
    const scheduled = running(triggers, refused).map((trigger) => {
      const next = scheduler.next(trigger.id);
      return { name: nameOf(trigger.id), trigger, ...(next ? { next } : {}) };
    });

    // Reload when agent files change, and pick up tasks scheduled since; one reload at a time.
    let reloading: Promise<void> = Promise.resolve();
    const reschedule = (why: 'agents' | 'tasks') => {
      reloading = reloading.then(async () => {
        try {
          if (why === 'agents') {
            onEvent({ type: 'skill-problems', messages: await rt.registry.reload() });
            skillsHeld.reread(stillRefused);
          }
          raw = await source.tasks();
          tasks = holds.schedulable(raw);
          const next = schedulable();
          reportSkillsOff(rt, onEvent, why === 'agents' ? agentIds(next) : [], reportTasks());
          const { refused } = await scheduler.update(next);
          if (why === 'agents') {
            const ids = running(next, refused).map((t) => t.id);
            onEvent({ type: 'reloaded', ids, names: ids.map(nameOf) });
          }
        } catch (error) {
          onEvent({ type: 'error', error: errorText(error) });
        }
      });
    };
    lookAgain = () => reschedule('tasks');
    const { watchFiles, systemClock } = await import('@birdie/scheduler');
    for (const dir of withAgents ? agentDirectories(rt.io, rt.values) : []) {
      const watch = watchFiles({
        root: dir.path,
        patterns: ['*.md'],
        debounce: 0.3,
        clock: systemClock,
        onChange: () => reschedule('agents'),
      });
      closers.push(() => watch.close());
      // Watching once the loop is returned: an agent file written right after the table was printed is seen.
      await watch.ready;
    }
    const poll = setInterval(async () => {
      const fresh = await source.tasks().catch(() => raw);
      if (JSON.stringify(fresh) !== JSON.stringify(raw)) reschedule('tasks');
    }, options.taskPollMs ?? TASK_POLL_MS);
    closers.push(async () => clearInterval(poll));

    return {
      scheduled,
      held: heldAtStart,
      get running() {
        return scheduler.running;
      },
      async stop(graceMs) {
        lookAgain = () => undefined;
        await closeAll();
        await reloading;
        await scheduler.stop({ graceMs });
      },
    };
  } catch (error) {
    await closeAll();
    await scheduler.stop({ graceMs: 0 });
    throw error;
  }
}
