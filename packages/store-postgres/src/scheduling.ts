import {
  checkDue,
  checkKey,
  checkOptions,
  checkTask,
  finishedAs,
  type TaskRow,
  type TasksRepo,
  type TriggersRepo,
  toTask,
  validateLeaseKey,
  validateUserId,
} from '@birdie/store/backend';
import type { Db } from './db.js';
import type { PgLeases } from './leases.js';

/**
 * The scheduler's claims, as on SQLite: a compare-and-set on the trigger's row in the same transaction that checks the
 * caller still holds the trigger's lease (`FOR SHARE` on the lease row), so a due time is claimed once.
 */
export function createTriggers(db: Db, leases: PgLeases): TriggersRepo {
  const last = async (key: string) => {
    const { rows } = await db.query<{ last_due: number }>(
      'SELECT last_due FROM trigger_state WHERE key = $1',
      [key],
    );
    return rows[0] ? new Date(rows[0].last_due) : undefined;
  };
  return {
    last: (key) => last(checkKey(key, 'key')),
    async arm(key, at) {
      const k = checkKey(key, 'key');
      const due = checkDue(at, 'at');
      await db.query(
        'INSERT INTO trigger_state (key, last_due, claimed_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING',
        [k, due, Date.now()],
      );
      return (await last(k))!;
    },
    async claim(key, dueAt, lease) {
      const k = checkKey(key, 'key');
      const due = checkDue(dueAt);
      validateLeaseKey(lease);
      return db.tx(async (client) => {
        await leases.requireHeld(client, lease);
        const { rowCount } = await client.query(
          `INSERT INTO trigger_state (key, last_due, claimed_at, owner) VALUES ($1, $2, $3, $4)
           ON CONFLICT (key) DO UPDATE SET last_due = excluded.last_due, claimed_at = excluded.claimed_at,
             owner = excluded.owner
           WHERE trigger_state.last_due < excluded.last_due`,
          [k, due, Date.now(), leases.owner],
        );
        return (rowCount ?? 0) > 0;
      });
    },
  };
}

export function createTasks(db: Db): TasksRepo {
  return {
    async create(task) {
      const t = checkTask(task);
      const { rows } = await db.query<TaskRow>(
        `INSERT INTO tasks (user_id, agent, prompt, schedule, timezone, every_s, at, status, created_at, created_by_run, grants, origin_session)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'active', $8, $9, $10, $11) RETURNING *`,
        [
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
        ],
      );
      return toTask(rows[0]!);
    },
    async list(userId, opts) {
      validateUserId(userId);
      const { all } = checkOptions(opts);
      const { rows } = await db.query<TaskRow>(
        `SELECT * FROM tasks WHERE user_id = $1${all ? '' : " AND status = 'active'"} ORDER BY id`,
        [userId],
      );
      return rows.map(toTask);
    },
    async listActive() {
      const { rows } = await db.query<TaskRow>("SELECT * FROM tasks WHERE status = 'active' ORDER BY id");
      return rows.map(toTask);
    },
    async get(id, userId) {
      validateUserId(userId);
      if (!Number.isSafeInteger(id)) return undefined;
      const { rows } = await db.query<TaskRow>('SELECT * FROM tasks WHERE id = $1 AND user_id = $2', [
        id,
        userId,
      ]);
      return rows[0] ? toTask(rows[0]) : undefined;
    },
    async cancel(id, userId) {
      validateUserId(userId);
      if (!Number.isSafeInteger(id)) return false;
      const { rowCount } = await db.query(
        "UPDATE tasks SET status = 'cancelled', ended_at = $1 WHERE id = $2 AND user_id = $3 AND status = 'active'",
        [Date.now(), id, userId],
      );
      return (rowCount ?? 0) > 0;
    },
    async finish(id, outcome) {
      if (!Number.isSafeInteger(id)) return;
      const { status, error } = finishedAs(outcome);
      await db.query(
        "UPDATE tasks SET status = $1, error = $2, ended_at = $3 WHERE id = $4 AND status = 'active'",
        [status, error, Date.now(), id],
      );
    },
  };
}
