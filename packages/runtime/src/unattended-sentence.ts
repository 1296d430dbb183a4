import { formatMs } from './duration-text.js';
import { type LoggedUnattendedEvent, SKIP_REASONS } from './unattended-log.js';

/**
 * One event of the unattended loop as a sentence for a person's log (`birdie start` without `--json`; the time is the
 * front end's to add): a run's start and end (with the rules that decided its calls), a skipped or queued run, an
 * error, a reload. `status` shows a run's status (a terminal colours it: green when `ok`).
 */
export function unattendedSentence(
  event: LoggedUnattendedEvent,
  status: (status: string) => string = (s) => s,
): string {
  switch (event.type) {
    case 'run-start': {
      const { firing, name, sessionId } = event;
      return `start ${name} (${firing.label}${firing.late ? ', late' : ''}) session ${sessionId}`;
    }
    case 'run-end': {
      const { name, run, durationMs } = event;
      const { result } = run;
      const error = result.error ? ` ${result.error.split('\n')[0]}` : '';
      const rules = run.rules.map(
        (r) =>
          `\n  ${r.tool}: ${r.effect} by the rule ${r.pattern} (${r.source.kind}${r.source.name ? ` ${r.source.name}` : ''})`,
      );
      return `end ${name} ${status(result.status)} run ${result.runId} in ${formatMs(durationMs)}${error}${rules.join('')}`;
    }
    case 'skipped':
      return `skipped ${event.name} (${event.label}) due ${event.dueAt.toISOString()}: ${SKIP_REASONS[event.reason]}`;
    case 'queued':
      return `queued ${event.name} (${event.label}): its previous run is still active`;
    case 'error':
      return event.id === undefined
        ? `reload failed: ${event.error}`
        : `error ${event.name ?? event.id}: ${event.error}`;
    case 'reloaded':
      return `reloaded: ${event.names.join(', ') || 'no triggers'}`;
    case 'skills-off':
    case 'notice':
      return event.message;
  }
}
