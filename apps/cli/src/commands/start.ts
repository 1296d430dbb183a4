import { openRuntime } from '@birdie/runtime/runtime';
import {
  describeTrigger,
  type LoggedUnattendedEvent,
  SKIP_REASONS,
  unattendedRecord,
} from '@birdie/runtime/unattended-log';
import type { UnattendedEvent } from '@birdie/runtime/unattended-loop';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, type Io, UsageError, write } from '../io.js';
import { reportSkillProblems } from '../render/diagnostics.js';
import { formatMs } from '../render/events.js';
import { styler, table } from '../render/style.js';
import { endChildProcesses, onStopSignal } from '../stop-signals.js';

function graceMs(values: CommandContext['values']): number {
  if (values.grace === undefined) return 30_000;
  const seconds = Number(values.grace);
  if (typeof values.grace !== 'string' || !Number.isFinite(seconds) || seconds < 0)
    throw new UsageError(`--grace must be a number of seconds (0 or more), got "${String(values.grace)}"`);
  return seconds * 1000;
}

/** One log line per event on stderr: a JSON object with `--json`, else a timestamped sentence. */
function eventLogger(io: Io, json: boolean) {
  const style = styler(io.stderr, io.env);
  const log = (fields: Record<string, unknown>, text: string) =>
    write(
      io.stderr,
      json
        ? JSON.stringify({ time: new Date().toISOString(), ...fields })
        : `${new Date().toISOString()} ${text}`,
    );
  const sentence = (event: LoggedUnattendedEvent): string => {
    switch (event.type) {
      case 'run-start': {
        const { firing, name, sessionId } = event;
        return `start ${name} (${firing.label}${firing.late ? ', late' : ''}) session ${sessionId}`;
      }
      case 'run-end': {
        const { name, run, durationMs } = event;
        const { result } = run;
        return `end ${name} ${result.status === 'ok' ? style('green', 'ok') : style('red', result.status)} run ${result.runId} in ${formatMs(durationMs)}${result.error ? ` ${result.error.split('\n')[0]}` : ''}${run.rules
          .map(
            (r) =>
              `\n  ${r.tool}: ${r.effect} by the rule ${r.pattern} (${r.source.kind}${r.source.name ? ` ${r.source.name}` : ''})`,
          )
          .join('')}`;
      }
      case 'skipped':
        return `skipped ${event.id} (${event.label}) due ${event.dueAt.toISOString()}: ${SKIP_REASONS[event.reason]}`;
      case 'queued':
        return `queued ${event.id} (${event.label}): its previous run is still active`;
      case 'error':
        return event.id === undefined ? `reload failed: ${event.error}` : `error ${event.id}: ${event.error}`;
      case 'reloaded':
        return `reloaded: ${event.ids.join(', ') || 'no triggers'}`;
    }
  };
  const onEvent = (event: UnattendedEvent) =>
    event.type === 'skill-problems'
      ? reportSkillProblems(event.messages, io)
      : log(unattendedRecord(event), sentence(event));
  return { log, onEvent };
}

/**
 * `birdie start`: runs agents on their triggers (and the user's scheduled tasks) in the foreground until SIGTERM or
 * SIGINT; `--once AGENT` runs one agent's trigger now and exits.
 */
export async function startCommand({ io, values }: CommandContext): Promise<number> {
  const grace = graceMs(values);
  const json = values.json === true;
  const rt = await openRuntime(io, values);
  const { log, onEvent } = eventLogger(io, json);
  try {
    if (typeof values.once === 'string') {
      const { runAgentNow } = await import('@birdie/runtime/unattended-loop');
      const abort = new AbortController();
      const stop = onStopSignal(() => abort.abort());
      try {
        const { failures } = await runAgentNow(rt, values.once, { onEvent, signal: abort.signal });
        return failures > 0 ? EXIT_RUN : EXIT_OK;
      } finally {
        stop();
      }
    }

    const { startUnattended } = await import('@birdie/runtime/unattended-loop');
    const loop = await startUnattended(rt, { onEvent });
    const rows = loop.scheduled.map((s) => [
      s.name,
      describeTrigger(s.trigger),
      s.next?.toISOString() ?? (s.trigger.watch?.length ? 'on change' : '-'),
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

    const signal = await new Promise<string>((resolve) => {
      const stop = onStopSignal((s) => {
        stop();
        resolve(s);
      });
    });
    log(
      { event: 'stopping', signal, running: loop.running, graceMs: grace },
      `stopping (${signal}): ${loop.running} run(s) active, up to ${grace / 1000} s to finish`,
    );
    await loop.stop(grace);
    log({ event: 'stopped' }, 'stopped');
    return EXIT_OK;
  } finally {
    await rt.close();
    await endChildProcesses();
  }
}
