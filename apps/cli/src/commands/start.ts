import { openRuntime, type Runtime, requireWritable } from '@birdie/runtime/runtime';
import { agentDirectories } from '@birdie/runtime/skills';
import { agentTrigger, runTriggered, TASK_PREFIX, taskTrigger } from '@birdie/runtime/unattended';
import type { Firing, SchedulerEvent, Trigger } from '@birdie/scheduler';
import type { ScheduledTask } from '@birdie/store';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, UsageError, write } from '../io.js';
import { reportSkillProblems } from '../render/diagnostics.js';
import { formatMs } from '../render/events.js';
import { styler, table } from '../render/style.js';
import { endChildProcesses, onStopSignal } from '../stop-signals.js';
import { didYouMean } from '../suggest.js';

/** How often `birdie start` looks for tasks scheduled since (by `birdie tasks` or the model's `schedule_task`). */
const TASK_POLL_MS = 10_000;

function graceMs(values: CommandContext['values']): number {
  if (values.grace === undefined) return 30_000;
  const seconds = Number(values.grace);
  if (typeof values.grace !== 'string' || !Number.isFinite(seconds) || seconds < 0)
    throw new UsageError(`--grace must be a number of seconds (0 or more), got "${String(values.grace)}"`);
  return seconds * 1000;
}

/** The triggers of every agent that has some, and of the user's active tasks. */
function triggersOf(rt: Runtime, tasks: readonly ScheduledTask[]): Trigger[] {
  const agents = rt.registry
    .current()
    .agents.flatMap((agent) => agentTrigger(agent, rt.cwd) ?? [])
    .sort((a, b) => a.id.localeCompare(b.id));
  return [...agents, ...tasks.map(taskTrigger)];
}

function describeTrigger(t: Trigger): string {
  return [
    t.schedule !== undefined ? `schedule ${t.schedule}${t.timezone ? ` (${t.timezone})` : ''}` : '',
    t.every !== undefined ? `every ${t.every}s` : '',
    t.at !== undefined ? `at ${t.at.toISOString()}` : '',
    t.watch?.length ? `watch ${t.watch.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/**
 * `birdie start`: runs agents on their triggers (and the user's scheduled tasks) in the foreground until SIGTERM or
 * SIGINT; `--once AGENT` runs one agent's trigger now and exits.
 */
export async function startCommand({ io, values }: CommandContext): Promise<number> {
  const grace = graceMs(values);
  const json = values.json === true;
  const rt = await openRuntime(io, values);
  const { Scheduler, watchFiles, systemClock } = await import('@birdie/scheduler');
  const style = styler(io.stderr, io.env);
  const log = (fields: Record<string, unknown>, text: string) =>
    write(
      io.stderr,
      json
        ? JSON.stringify({ time: new Date().toISOString(), ...fields })
        : `${new Date().toISOString()} ${text}`,
    );
  const controllers: Array<() => Promise<void>> = [];
  try {
    requireWritable(rt.store);
    reportSkillProblems(rt.registry.messages, io);
    let tasks = await rt.store.tasks.list(rt.userId);
    const taskOf = (id: string) =>
      id.startsWith(TASK_PREFIX) ? tasks.find((t) => `${TASK_PREFIX}${t.id}` === id) : undefined;
    let failures = 0;
    const run = async (firing: Firing) => {
      const task = taskOf(firing.trigger.id);
      const agent = task ? task.agent : firing.trigger.id;
      const name = task ? `task ${task.id}` : firing.trigger.id;
      const started = Date.now();
      const outcome = await runTriggered(rt, firing, {
        ...(agent !== undefined ? { agent } : {}),
        ...(task ? { task } : {}),
        onStart: ({ sessionId }) =>
          log(
            {
              event: 'run-start',
              agent: name,
              trigger: firing.label,
              due: firing.dueAt.toISOString(),
              late: firing.late,
              session: sessionId,
            },
            `start ${name} (${firing.label}${firing.late ? ', late' : ''}) session ${sessionId}`,
          ),
      });
      if (task?.at !== undefined) await rt.store.tasks.finish(task.id);
      const { result } = outcome;
      if (result.status !== 'ok') failures++;
      const status = result.status;
      log(
        {
          event: 'run-end',
          agent: name,
          trigger: firing.label,
          run: result.runId,
          session: outcome.sessionId,
          status,
          durationMs: Date.now() - started,
          inputTokens: result.inputTokens,
          outputTokens: result.outputTokens,
          ...(outcome.refused.length ? { refused: outcome.refused } : {}),
          ...(outcome.rules.length ? { rules: outcome.rules } : {}),
          ...(result.error ? { error: result.error } : {}),
        },
        `end ${name} ${status === 'ok' ? style('green', 'ok') : style('red', status)} run ${result.runId} in ${formatMs(Date.now() - started)}${result.error ? ` ${result.error.split('\n')[0]}` : ''}${outcome.rules
          .map(
            (r) =>
              `\n  ${r.tool}: ${r.effect} by the rule ${r.pattern} (${r.source.kind}${r.source.name ? ` ${r.source.name}` : ''})`,
          )
          .join('')}`,
      );
    };
    const onEvent = (event: SchedulerEvent) => {
      if (event.type === 'skipped')
        log(
          {
            event: 'skipped',
            agent: event.trigger.id,
            trigger: event.label,
            due: event.dueAt.toISOString(),
            reason: event.reason,
          },
          `skipped ${event.trigger.id} (${event.label}) due ${event.dueAt.toISOString()}: ${
            {
              overlap: 'its previous run is still active',
              busy: 'another birdie start is running it',
              claimed: 'another birdie start ran it',
              missed: 'missed while nothing ran (catch_up: false)',
            }[event.reason]
          }`,
        );
      else if (event.type === 'queued')
        log(
          { event: 'queued', agent: event.trigger.id, trigger: event.label },
          `queued ${event.trigger.id} (${event.label}): its previous run is still active`,
        );
      else if (event.type === 'error') {
        const message = event.error instanceof Error ? event.error.message : String(event.error);
        log(
          { event: 'error', agent: event.trigger.id, error: message },
          `error ${event.trigger.id}: ${message}`,
        );
      } else if (event.type === 'run-end' && event.error) {
        const message = event.error instanceof Error ? event.error.message : String(event.error);
        log(
          { event: 'error', agent: event.firing.trigger.id, error: message },
          `error ${event.firing.trigger.id}: ${message}`,
        );
      }
    };
    const scheduler = new Scheduler({ store: rt.store, run, onEvent });

    if (typeof values.once === 'string') {
      const name = values.once;
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
      const stop = onStopSignal(() => void scheduler.stop({ graceMs: 0 }));
      try {
        await scheduler.fireNow(trigger);
      } finally {
        stop();
      }
      return failures > 0 ? EXIT_RUN : EXIT_OK;
    }

    const triggers = triggersOf(rt, tasks);
    await scheduler.update(triggers);
    const rows = triggers.map((t) => [
      taskOf(t.id) ? `task ${taskOf(t.id)!.id}` : t.id,
      describeTrigger(t),
      scheduler.next(t.id)?.toISOString() ?? (t.watch?.length ? 'on change' : '-'),
    ]);
    if (json)
      for (const [name, trigger, next] of rows)
        write(io.stdout, JSON.stringify({ type: 'scheduled', agent: name, trigger, next }));
    else if (rows.length === 0)
      write(
        io.stdout,
        'No agents with triggers (schedule, every or watch) and no scheduled tasks; waiting for some.',
      );
    else io.stdout.write(table(rows, ['AGENT', 'TRIGGER', 'NEXT RUN (UTC)']));

    // Reload when agent files change, and pick up tasks scheduled since.
    let reloading: Promise<void> = Promise.resolve();
    const reschedule = (why: string) => {
      reloading = reloading.then(async () => {
        try {
          if (why === 'agents') reportSkillProblems(await rt.registry.reload(), io);
          tasks = await rt.store.tasks.list(rt.userId);
          const next = triggersOf(rt, tasks);
          await scheduler.update(next);
          if (why === 'agents')
            log(
              { event: 'reloaded', agents: next.map((t) => t.id) },
              `reloaded: ${next.map((t) => t.id).join(', ') || 'no triggers'}`,
            );
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          log({ event: 'error', error: message }, `reload failed: ${message}`);
        }
      });
    };
    for (const dir of agentDirectories(io, values)) {
      const watch = watchFiles({
        root: dir.path,
        patterns: ['*.md'],
        debounce: 0.3,
        clock: systemClock,
        onChange: () => reschedule('agents'),
      });
      controllers.push(() => watch.close());
    }
    const poll = setInterval(async () => {
      const fresh = await rt.store.tasks.list(rt.userId).catch(() => tasks);
      if (JSON.stringify(fresh) !== JSON.stringify(tasks)) reschedule('tasks');
    }, TASK_POLL_MS);
    controllers.push(async () => clearInterval(poll));

    const signal = await new Promise<string>((resolve) => {
      const stop = onStopSignal((s) => {
        stop();
        resolve(s);
      });
    });
    log(
      { event: 'stopping', signal, running: scheduler.running, graceMs: grace },
      `stopping (${signal}): ${scheduler.running} run(s) active, up to ${grace / 1000} s to finish`,
    );
    for (const close of controllers.splice(0)) await close();
    await reloading;
    await scheduler.stop({ graceMs: grace });
    log({ event: 'stopped' }, 'stopped');
    return EXIT_OK;
  } finally {
    for (const close of controllers.splice(0)) await close();
    await rt.close();
    await endChildProcesses();
  }
}
