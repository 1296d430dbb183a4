import { severityOf, sortDiagnostics } from '@birdie/runtime/diagnostic-summary';
import { secondsFlag } from '@birdie/runtime/number-flags';
import { openRuntime } from '@birdie/runtime/runtime';
import { describeTrigger, unattendedRecord } from '@birdie/runtime/unattended-log';
import type { UnattendedEvent } from '@birdie/runtime/unattended-loop';
import { unattendedSentence } from '@birdie/runtime/unattended-sentence';
import { reportSkillProblems } from '@birdie/terminal/diagnostics';
import { styler, table } from '@birdie/terminal/style';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, EXIT_RUN, type Io, write } from '../io.js';
import { endChildProcesses, onStopSignal } from '../stop-signals.js';

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
  const onEvent = (event: UnattendedEvent) => {
    if (event.type !== 'skill-problems')
      return log(
        unattendedRecord(event),
        unattendedSentence(event, (s) => style(s === 'ok' ? 'green' : 'red', s)),
      );
    // The JSON log stays one object per line: each problem is one (the text form is `skills check`'s).
    if (!json) return reportSkillProblems(event.messages, io);
    for (const m of sortDiagnostics(event.messages.filter((m) => severityOf(m) !== 'info')))
      log(
        {
          event: 'diagnostic',
          severity: severityOf(m),
          ...(m.file ? { file: m.file } : {}),
          line: m.line ?? 1,
          column: m.column ?? 1,
          message: m.reason,
          ...(m.ruleId ? { rule: m.source ? `${m.source}:${m.ruleId}` : m.ruleId } : {}),
        },
        '',
      );
  };
  return { log, onEvent };
}

/**
 * `birdie start`: runs agents on their triggers (and the user's scheduled tasks) in the foreground until SIGTERM or
 * SIGINT; `--once AGENT` runs one agent's trigger now and exits.
 */
export async function startCommand({ io, values }: CommandContext): Promise<number> {
  const grace = secondsFlag(values, 'grace', 30);
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
    // Tasks scheduled through `birdie serve` are the server's to run, in their user's workspace (it says so, once each).
    const { ownTasks } = await import('@birdie/runtime/server-tasks');
    // Listened for before anything is printed: a stop signal right after the table (or during the start) still ends
    // the loop the graceful way, with exit 0.
    let stopListening = () => {};
    const stopped = new Promise<string>((resolve) => {
      stopListening = onStopSignal((s) => {
        stopListening();
        resolve(s);
      });
    });
    let loop: Awaited<ReturnType<typeof startUnattended>>;
    try {
      loop = await startUnattended(rt, { onEvent }, ownTasks(rt, onEvent));
    } catch (error) {
      stopListening();
      throw error;
    }
    const rows = loop.scheduled.map((s) => [
      s.name,
      describeTrigger(s.trigger),
      s.next?.toISOString() ?? (s.trigger.watch?.length ? 'on change' : '-'),
    ]);
    if (json) {
      for (const [name, trigger, next] of rows)
        write(io.stdout, JSON.stringify({ type: 'scheduled', agent: name, trigger, next }));
      // A held task is said in a notice on stderr; its record here keeps stdout a full list of what start found.
      for (const name of loop.held) write(io.stdout, JSON.stringify({ type: 'held', agent: name }));
    } else if (rows.length === 0) write(io.stdout, nothingScheduled(loop.held));
    else io.stdout.write(table(rows, ['AGENT', 'TRIGGER', 'NEXT RUN (UTC)']));

    const signal = await stopped;
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

/** The line `birdie start` prints when it has nothing to run yet; a held task is a task, and is named. */
function nothingScheduled(held: readonly string[]): string {
  if (held.length === 0)
    return 'No agents with triggers (schedule, every or watch) and no scheduled tasks; waiting for some.';
  const names =
    held.length === 1 ? `${held[0]} is` : `${held.slice(0, -1).join(', ')} and ${held.at(-1)} are`;
  return `Nothing is scheduled: ${names} held (said above); waiting for an agent with a trigger, or a task that can run.`;
}
