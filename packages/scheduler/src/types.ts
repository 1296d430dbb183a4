import type { Timing } from './due.js';

/**
 * What the scheduler needs of a store: the one-writer lease (on `trigger:<id>` keys) and the claimed due times.
 * `@birdie/store`'s `Store` (SQLite or PostgreSQL) is one.
 */
export interface TriggerStore {
  leases: {
    acquire(key: string, opts: { waitMs: number }): Promise<{ release(): Promise<void> }>;
  };
  triggers: {
    arm(key: string, at: Date): Promise<Date>;
    claim(key: string, dueAt: Date, lease: string): Promise<boolean>;
  };
}

/** One agent's (or one task's) triggers. */
export interface Trigger extends Timing {
  /** Unique among the scheduler's triggers (an agent name, `task-12`); its lease key is `trigger:<id>`. */
  id: string;
  /** Paths or globs relative to `root` whose changes start a run. */
  watch?: string[];
  /** The folder `watch` is relative to. */
  root?: string;
  /** Seconds of quiet after the last change before a watch run (default 0.5). */
  debounce?: number;
  /** What the run is told; for `watch`, the changed paths are appended. */
  prompt?: string;
  /** A run due while one of this trigger's runs is active: `skip` (default) or `queue` (one waits). */
  overlap?: 'skip' | 'queue';
  /** `false`: a due time missed while nothing ran is skipped instead of run once. */
  catchUp?: boolean;
}

export type FiringKind = 'schedule' | 'every' | 'at' | 'watch' | 'once';

/** One run the scheduler starts. */
export interface Firing {
  trigger: Trigger;
  kind: FiringKind;
  /** `every 30s`, `schedule 0 9 * * *`, `watch a.md, b.md`, `once`. */
  label: string;
  dueAt: Date;
  prompt: string;
  /** For `watch`: the changed paths, relative to the root. */
  paths?: string[];
  /** A due time missed while nothing ran, run late. */
  late: boolean;
  /** Aborted when the scheduler stops and the grace time is over. */
  signal: AbortSignal;
}

export type SkipReason =
  /** One of the trigger's runs is still active (overlap: skip, or a second one while one is queued). */
  | 'overlap'
  /** Another process holds the trigger's lease (it is running this trigger). */
  | 'busy'
  /** Another process already claimed this due time. */
  | 'claimed'
  /** Missed during downtime with `catchUp: false`. */
  | 'missed';

export type SchedulerEvent =
  | { type: 'run-start'; firing: Firing }
  | { type: 'run-end'; firing: Firing; error?: unknown }
  | { type: 'skipped'; trigger: Trigger; label: string; dueAt: Date; reason: SkipReason }
  | { type: 'queued'; trigger: Trigger; label: string; dueAt: Date }
  | { type: 'error'; trigger: Trigger; error: unknown };

/** What `Scheduler.update` did not start. */
export interface UpdateResult {
  /**
   * The triggers given that are not running, with why: an `invalid-trigger` `SchedulerError`, or the failure that
   * stopped its start (the store, a watch). Every update lists them again; the `error` event says each once.
   */
  refused: Array<{ trigger: Trigger; error: unknown }>;
}
