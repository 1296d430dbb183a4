import { formatSeconds, type SkipReason, type Trigger } from '@birdie/scheduler';
import type { UnattendedEvent } from './unattended-loop.js';

// What a front end logs of the unattended loop (`birdie start`, or an embedder's own supervisor): the fields of each
// event as one structured record, and the words for a trigger and for a skipped run. The front end adds the time and
// chooses how to show them (a JSON line, a sentence).

/** A trigger in words: `schedule 0 9 * * * (Europe/Paris); watch src`. */
export function describeTrigger(t: Trigger): string {
  return [
    t.schedule !== undefined ? `schedule ${t.schedule}${t.timezone ? ` (${t.timezone})` : ''}` : '',
    t.every !== undefined ? `every ${formatSeconds(t.every)}` : '',
    t.at !== undefined ? `at ${t.at.toISOString()}` : '',
    t.watch?.length ? `watch ${t.watch.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** Why a due run did not start. */
export const SKIP_REASONS: Record<SkipReason, string> = {
  overlap: 'its previous run is still active',
  busy: 'another birdie start is running it',
  claimed: 'another birdie start ran it',
  missed: 'missed while nothing ran (catch_up: false)',
};

/** The events that are log records (the skill problems are diagnostics, reported as such). */
export type LoggedUnattendedEvent = Exclude<UnattendedEvent, { type: 'skill-problems' }>;

/** One event as the fields of a log record: `event` names it, `agent` the agent (or `task N`) it is about. */
export function unattendedRecord(event: LoggedUnattendedEvent): Record<string, unknown> {
  switch (event.type) {
    case 'run-start': {
      const { firing, name, sessionId } = event;
      return {
        event: 'run-start',
        agent: name,
        trigger: firing.label,
        due: firing.dueAt.toISOString(),
        late: firing.late,
        session: sessionId,
      };
    }
    case 'run-end': {
      const { name, firing, run, durationMs } = event;
      const { result } = run;
      return {
        event: 'run-end',
        agent: name,
        trigger: firing.label,
        run: result.runId,
        session: run.sessionId,
        status: result.status,
        durationMs,
        inputTokens: result.inputTokens,
        outputTokens: result.outputTokens,
        ...(run.refused.length ? { refused: run.refused } : {}),
        ...(run.rules.length ? { rules: run.rules } : {}),
        ...(result.error ? { error: result.error } : {}),
      };
    }
    case 'skipped':
      return {
        event: 'skipped',
        agent: event.name,
        trigger: event.label,
        due: event.dueAt.toISOString(),
        reason: event.reason,
      };
    case 'queued':
      return { event: 'queued', agent: event.name, trigger: event.label };
    case 'error':
      return event.id === undefined
        ? { event: 'error', error: event.error }
        : { event: 'error', agent: event.name ?? event.id, error: event.error };
    case 'reloaded':
      return { event: 'reloaded', agents: event.names };
    case 'skills-off':
      return { event: 'skills-off', agent: event.name, skills: event.skills, message: event.message };
    case 'notice':
      return { event: 'notice', agent: event.name, message: event.message };
  }
}
