import { Cron } from 'croner';
import type { Reporter } from './diagnostics.js';
import type { Field } from './frontmatter.js';
import { asText } from './own.js';
import type { AgentTriggers } from './types.js';

/** The trigger keys of an agent file, as written, and where each one's value is. */
export const TRIGGER_KEYS = [
  'schedule',
  'timezone',
  'every',
  'watch',
  'debounce',
  'prompt',
  'overlap',
  'catch_up',
  'session',
] as const;
export type TriggerKey = (typeof TRIGGER_KEYS)[number];

/** The shortest `every`: one second (a run more often than that is a loop, not a schedule). */
export const MIN_EVERY_SECONDS = 1;

const UNITS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d)\s*)+$/;

/**
 * Seconds in a duration: a number of seconds, or units in a row (`30s`, `15m`, `2h`, `1h30m`, `500ms`, `1d`).
 * `undefined` when it is neither.
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (!DURATION.test(text)) return undefined;
  let seconds = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
    seconds += Number(amount) * UNITS[unit!]!;
  }
  return Math.round(seconds * 1000) / 1000;
}

/** Why a cron expression that parses still never runs: it names only dates the calendar lacks (30 February). */
export const NEVER_DUE = 'it never comes due (no date matches it)';

/**
 * Why `pattern` is not a cron expression croner runs (5 fields, 6 with seconds, or `@daily` and the like), or one
 * that never comes due: croner accepts `0 0 30 2 *` and finds no time for it.
 */
export function cronProblem(pattern: string): string | undefined {
  let cron: Cron;
  try {
    cron = new Cron(pattern, { paused: true });
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, '');
  }
  return cron.nextRun() === null ? NEVER_DUE : undefined;
}

/** Whether this Node knows `zone` as an IANA time zone (`Europe/Berlin`, `UTC`). */
export function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Why a watch path or glob cannot be watched (it must stay inside the agent's project). */
export function watchProblem(pattern: string): string | undefined {
  if (pattern.trim() === '') return 'an empty path';
  if (pattern.includes('\0')) return 'a NUL byte';
  if (/^(?:\/|\\|[a-zA-Z]:[\\/]|~)/.test(pattern))
    return 'an absolute path: watch paths are relative to the agent\u2019s project';
  if (pattern.split(/[\\/]/).includes('..')) return '`..`: watch paths stay inside the agent\u2019s project';
  return undefined;
}

interface Ctx {
  field: Field;
  reporter: Reporter;
  triggers: AgentTriggers;
  /** Offsets of each item of a YAML list value (for `watch`), when known. */
  items?: Array<{ start: number; end: number }>;
}

const report = (ctx: Ctx, rule: Parameters<Reporter['report']>[0], reason: string) =>
  ctx.reporter.report(rule, reason, ctx.field.valueStart, ctx.field.valueEnd);

function readSchedule(ctx: Ctx): void {
  const value = ctx.field.value;
  if (typeof value !== 'string' || value.trim() === '') {
    report(ctx, 'invalid-schedule', `\`schedule\`: expected a cron expression such as "0 9 * * 1-5"`);
    return;
  }
  const problem = cronProblem(value.trim());
  if (problem)
    report(ctx, 'invalid-schedule', `\`schedule\`: "${value.trim()}" is not a cron expression: ${problem}`);
  else ctx.triggers.schedule = value.trim();
}

function readTimezone(ctx: Ctx): void {
  const value = ctx.field.value;
  if (typeof value !== 'string' || !knownTimeZone(value.trim()) || value.trim() === '') {
    report(
      ctx,
      'invalid-timezone',
      `\`timezone\`: ${typeof value === 'string' ? `"${value}"` : `\`${asText(value)}\``} is not an IANA time zone (e.g. "Europe/Berlin", "UTC")`,
    );
    return;
  }
  ctx.triggers.timezone = value.trim();
}

function readDuration(ctx: Ctx, key: 'every' | 'debounce'): void {
  const seconds = parseDuration(ctx.field.value);
  const shown =
    typeof ctx.field.value === 'string' ? `"${ctx.field.value}"` : `\`${asText(ctx.field.value)}\``;
  if (seconds === undefined) {
    report(ctx, 'invalid-interval', `\`${key}\`: ${shown} is not a duration (e.g. 30s, 15m, 2h, 1h30m)`);
    return;
  }
  if (key === 'every' && seconds < MIN_EVERY_SECONDS) {
    report(ctx, 'invalid-interval', `\`every\`: ${shown} is shorter than ${MIN_EVERY_SECONDS} s`);
    return;
  }
  ctx.triggers[key] = seconds;
}

function readWatch(ctx: Ctx): void {
  const value = ctx.field.value;
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (!list || list.length === 0) {
    report(ctx, 'invalid-watch', '`watch`: expected a path or glob, or a list of them');
    return;
  }
  const paths: string[] = [];
  list.forEach((item, index) => {
    const at = ctx.items?.[index] ?? { start: ctx.field.valueStart, end: ctx.field.valueEnd };
    const problem =
      typeof item !== 'string' ? `expected a path, got \`${asText(item)}\`` : watchProblem(item);
    if (problem) {
      const where = Array.isArray(value) ? `\`watch[${index}]\`` : '`watch`';
      ctx.reporter.report('invalid-watch', `${where}: ${problem}`, at.start, at.end);
      return;
    }
    const path = (item as string).trim();
    if (!paths.includes(path)) paths.push(path);
  });
  if (paths.length > 0) ctx.triggers.watch = paths;
}

function readPrompt(ctx: Ctx): void {
  const value = ctx.field.value;
  if (typeof value !== 'string' || value.trim() === '') {
    report(ctx, 'invalid-type', '`prompt`: expected the text the agent is told when triggered');
    return;
  }
  ctx.triggers.prompt = value.trim();
}

function readOverlap(ctx: Ctx): void {
  const value = ctx.field.value;
  if (value !== 'skip' && value !== 'queue') {
    report(ctx, 'invalid-type', `\`overlap\`: expected \`skip\` or \`queue\`, got \`${asText(value)}\``);
    return;
  }
  ctx.triggers.overlap = value;
}

function readCatchUp(ctx: Ctx): void {
  if (typeof ctx.field.value !== 'boolean') {
    report(ctx, 'invalid-type', '`catch_up`: expected true or false');
    return;
  }
  ctx.triggers.catchUp = ctx.field.value;
}

function readSession(ctx: Ctx): void {
  const value = ctx.field.value;
  if (value !== 'keep' && value !== 'new') {
    report(ctx, 'invalid-type', `\`session\`: expected \`keep\` or \`new\`, got \`${asText(value)}\``);
    return;
  }
  ctx.triggers.session = value;
}

const READERS: Record<TriggerKey, (ctx: Ctx) => void> = {
  schedule: readSchedule,
  timezone: readTimezone,
  every: (ctx) => readDuration(ctx, 'every'),
  watch: readWatch,
  debounce: (ctx) => readDuration(ctx, 'debounce'),
  prompt: readPrompt,
  overlap: readOverlap,
  catch_up: readCatchUp,
  session: readSession,
};

/** Reads one trigger key into `triggers`, reporting a bad value at its place. */
export function readTriggerField(
  key: TriggerKey,
  field: Field,
  reporter: Reporter,
  triggers: AgentTriggers,
  items?: Array<{ start: number; end: number }>,
): void {
  READERS[key]({ field, reporter, triggers, ...(items ? { items } : {}) });
}

/** Which keys only mean something with which trigger. */
const NEEDS: Partial<Record<TriggerKey, { keys: TriggerKey[]; what: string }>> = {
  timezone: { keys: ['schedule'], what: '`schedule`' },
  debounce: { keys: ['watch'], what: '`watch`' },
  prompt: { keys: ['schedule', 'every', 'watch'], what: 'a trigger (`schedule`, `every` or `watch`)' },
  overlap: { keys: ['schedule', 'every', 'watch'], what: 'a trigger (`schedule`, `every` or `watch`)' },
  catch_up: { keys: ['schedule', 'every'], what: '`schedule` or `every`' },
  session: { keys: ['schedule', 'every', 'watch'], what: 'a trigger (`schedule`, `every` or `watch`)' },
};

/**
 * After every key was read: warns about trigger keys that do nothing without another one (`timezone` without
 * `schedule`, …) and about a trigger without a `prompt`. Returns the triggers when the agent has any.
 */
export function finishTriggers(
  fields: Map<string, Field>,
  triggers: AgentTriggers,
  reporter: Reporter,
): AgentTriggers | undefined {
  const written = (key: TriggerKey) =>
    fields.get(key)?.value !== undefined && fields.get(key)?.value !== null;
  for (const [key, need] of Object.entries(NEEDS) as Array<
    [TriggerKey, { keys: TriggerKey[]; what: string }]
  >) {
    const field = fields.get(key);
    if (!field || !written(key) || need.keys.some(written)) continue;
    reporter.report(
      'trigger-key-unused',
      `\`${key}\` does nothing without ${need.what}; it is ignored`,
      field.keyStart,
      field.keyEnd,
    );
    delete triggers[key === 'catch_up' ? 'catchUp' : (key as Exclude<TriggerKey, 'catch_up'>)];
  }
  const kinds = (['schedule', 'every', 'watch'] as const).filter(written);
  if (kinds.length === 0) return undefined;
  if (!written('prompt')) {
    const field = fields.get(kinds[0]!)!;
    reporter.report(
      'missing-prompt',
      `\`${kinds[0]}\` without \`prompt\`: the agent is told only that it was triggered; say what to do in \`prompt\``,
      field.keyStart,
      field.keyEnd,
    );
  }
  return triggers;
}
