import { checkOptions } from './checks.js';
import { type Db, immediate } from './db.js';
import { validateUserId } from './ids.js';
import type { ScheduledTask, SyncOf, TaskStatus, TasksRepo } from './interface.js';
import { checkTask } from './validate.js';

export interface TaskRow {
  id: number;
  user_id: string;
  agent: string | null;
  prompt: string;
  schedule: string | null;
  timezone: string | null;
  every_s: number | null;
  at: number | null;
  status: TaskStatus;
  created_at: number;
  created_by_run: number | null;
  ended_at: number | null;
  error: string | null;
  /** JSON text of the grants (v12); undefined in rows read before the column existed. */
  grants?: string | null;
  /** The session that scheduled it (v13); undefined in rows read before the column existed. */
  origin_session?: string | null;
}

export function createTasks(db: Db): SyncOf<TasksRepo> {
  const insert = db.prepare<unknown[], TaskRow>(
    `INSERT INTO tasks (user_id, agent, prompt, schedule, timezone, every_s, at, status, created_at, created_by_run, grants, origin_session)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?) RETURNING *`,
  );
  const active = db.prepare<[string], TaskRow>(
    "SELECT * FROM tasks WHERE user_id = ? AND status = 'active' ORDER BY id",
  );
  const all = db.prepare<[string], TaskRow>('SELECT * FROM tasks WHERE user_id = ? ORDER BY id');
  const everyActive = db.prepare<[], TaskRow>("SELECT * FROM tasks WHERE status = 'active' ORDER BY id");
  const one = db.prepare<[number, string], TaskRow>('SELECT * FROM tasks WHERE id = ? AND user_id = ?');
  const cancel = db.prepare(
    "UPDATE tasks SET status = 'cancelled', ended_at = ? WHERE id = ? AND user_id = ? AND status = 'active'",
  );
  const finish = db.prepare(
    "UPDATE tasks SET status = ?, error = ?, ended_at = ? WHERE id = ? AND status = 'active'",
  );
  return {
    create(task) {
      const t = checkTask(task);
      const row = immediate(db, () =>
        insert.get(
          t.userId,
          t.agent,
          t.prompt,
          t.schedule,
          t.timezone,
          t.every,
          t.at,
          Date.now(),
          t.createdByRun,
          t.grants,
          t.originSession,
        ),
      );
      return toTask(row!);
    },
    list(userId, opts) {
      validateUserId(userId);
      return (checkOptions(opts).all ? all : active).all(userId).map(toTask);
    },
    listActive() {
      return everyActive.all().map(toTask);
    },
    get(id, userId) {
      validateUserId(userId);
      if (!Number.isSafeInteger(id)) return undefined;
      const row = one.get(id, userId);
      return row ? toTask(row) : undefined;
    },
    cancel(id, userId) {
      validateUserId(userId);
      if (!Number.isSafeInteger(id)) return false;
      return immediate(db, () => cancel.run(Date.now(), id, userId)).changes > 0;
    },
    finish(id, outcome) {
      if (!Number.isSafeInteger(id)) return;
      const { status, error } = finishedAs(outcome);
      immediate(db, () => finish.run(status, error, Date.now(), id));
    },
  };
}

/** The status and error a one-time task ends with after its run (`failed` with the run's error). */
export function finishedAs(outcome: { error?: string } | undefined): {
  status: TaskStatus;
  error: string | null;
} {
  const { error } = checkOptions(outcome, 'outcome');
  return error !== undefined ? { status: 'failed', error } : { status: 'done', error: null };
}

export function toTask(row: TaskRow): ScheduledTask {
  const task: ScheduledTask = {
    id: Number(row.id),
    userId: row.user_id,
    prompt: row.prompt,
    status: row.status,
    createdAt: new Date(Number(row.created_at)),
  };
  if (row.agent !== null) task.agent = row.agent;
  if (row.schedule !== null) task.schedule = row.schedule;
  if (row.timezone !== null) task.timezone = row.timezone;
  if (row.every_s !== null) task.every = Number(row.every_s);
  if (row.at !== null) task.at = new Date(Number(row.at));
  if (row.created_by_run !== null) task.createdByRun = Number(row.created_by_run);
  if (typeof row.origin_session === 'string') task.originSession = row.origin_session;
  if (row.ended_at !== null) task.endedAt = new Date(Number(row.ended_at));
  if (row.error !== null && row.error !== undefined) task.error = row.error;
  if (typeof row.grants === 'string') task.grants = grantsOf(row.grants);
  return task;
}

/** Stored grants as the task's; text that is not grants (a damaged row) is none, as a task scheduled without them. */
function grantsOf(text: string): ScheduledTask['grants'] {
  try {
    const parsed = JSON.parse(text) as { enabled?: unknown; disabled?: unknown; sources?: unknown };
    const names = (list: unknown) => (Array.isArray(list) ? list.filter((n) => typeof n === 'string') : []);
    const sources =
      parsed.sources && typeof parsed.sources === 'object'
        ? Object.fromEntries(Object.entries(parsed.sources).filter(([, v]) => typeof v === 'string'))
        : {};
    return { enabled: names(parsed.enabled), disabled: names(parsed.disabled), sources };
  } catch {
    return undefined;
  }
}
