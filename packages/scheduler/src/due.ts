import { Cron } from 'croner';
import { SchedulerError } from './errors.js';

/** When a trigger comes due: a cron `schedule` (in `timezone`), a fixed interval `every` (s), or once `at`. */
export interface Timing {
  schedule?: string;
  timezone?: string;
  every?: number;
  at?: Date;
}

/** How the log names a timing: `schedule 0 9 * * * (Europe/Berlin)`, `every 30s`, `at 2026-…`. */
export function timingLabel(t: Timing): string {
  if (t.schedule !== undefined) return `schedule ${t.schedule}${t.timezone ? ` (${t.timezone})` : ''}`;
  if (t.every !== undefined) return `every ${formatSeconds(t.every)}`;
  if (t.at !== undefined) return `at ${t.at.toISOString()}`;
  return 'watch';
}

export function formatSeconds(s: number): string {
  if (s % 3600 === 0) return `${s / 3600}h`;
  if (s % 60 === 0) return `${s / 60}m`;
  return `${s}s`;
}

/** A due-time calculator for one timing; `invalid-trigger` for a cron expression or zone croner refuses. */
export function dueTimes(t: Timing): { next(after: number): number | undefined } {
  if (t.schedule !== undefined) {
    // croner takes any zone name and fails only when asked for a time: check it here, where update can refuse it.
    if (t.timezone !== undefined && !isTimeZone(t.timezone))
      throw new SchedulerError('invalid-trigger', `${JSON.stringify(t.timezone)} is not an IANA time zone`);
    let cron: Cron;
    try {
      cron = new Cron(t.schedule, { paused: true, ...(t.timezone ? { timezone: t.timezone } : {}) });
    } catch (error) {
      throw new SchedulerError('invalid-trigger', `not a cron schedule: ${t.schedule}`, { cause: error });
    }
    return { next: (after) => cron.nextRun(new Date(after))?.getTime() };
  }
  if (t.every !== undefined) {
    if (!(t.every > 0)) throw new SchedulerError('invalid-trigger', `every must be positive, got ${t.every}`);
    const ms = Math.round(t.every * 1000);
    // Due times are a grid from the trigger's first record: a slow run does not shift later ones.
    return { next: (after) => after + ms };
  }
  if (t.at !== undefined) {
    if (!(t.at instanceof Date) || Number.isNaN(t.at.getTime()))
      throw new SchedulerError('invalid-trigger', `at must be a valid date, got ${String(t.at)}`);
    const at = t.at.getTime();
    return { next: (after) => (after < at ? at : undefined) };
  }
  throw new SchedulerError('invalid-trigger', 'a timing needs schedule, every or at');
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The due times after `last` up to `now`: the newest one (what a catch-up runs) and how many were missed.
 * Bounded: a schedule missed for years counts at most `limit`.
 */
export function missedSince(
  calc: { next(after: number): number | undefined },
  last: number,
  now: number,
  limit = 100_000,
): { newest?: number; count: number } {
  let count = 0;
  let newest: number | undefined;
  let at = calc.next(last);
  while (at !== undefined && at <= now && count < limit) {
    newest = at;
    count++;
    at = calc.next(at);
  }
  return newest === undefined ? { count } : { newest, count };
}
