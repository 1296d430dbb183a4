import { type Clock, systemClock } from './clock.js';
import { dueTimes, missedSince, timingLabel } from './due.js';
import { SchedulerError } from './errors.js';
import type { Firing, FiringKind, SchedulerEvent, Trigger, TriggerStore, UpdateResult } from './types.js';
import { type FileWatch, watchFiles } from './watch.js';

export interface SchedulerOptions {
  store: TriggerStore;
  /** Runs one firing; its rejection is reported as the run's error, never thrown. */
  run(firing: Firing): Promise<void>;
  clock?: Clock;
  onEvent?(event: SchedulerEvent): void;
}

type TimedKind = 'schedule' | 'every' | 'at';

interface Entry {
  trigger: Trigger;
  timers: Map<TimedKind, { handle: unknown; dueAt: number }>;
  watch?: FileWatch;
  active?: Promise<void>;
  controller?: AbortController;
  queued?: () => Promise<void>;
  removed: boolean;
}

/**
 * Why a trigger could never run (`invalid-trigger`): no timing and no watch, or a timing `dueTimes` refuses; undefined
 * when it can.
 */
function triggerProblem(trigger: Trigger): SchedulerError | undefined {
  const kinds = (['schedule', 'every', 'at'] as const).filter((kind) => trigger[kind] !== undefined);
  if (kinds.length === 0 && !trigger.watch?.length)
    return new SchedulerError('invalid-trigger', `trigger ${trigger.id} needs schedule, every, at or watch`);
  try {
    for (const kind of kinds)
      dueTimes({
        [kind]: trigger[kind],
        ...(kind === 'schedule' && trigger.timezone ? { timezone: trigger.timezone } : {}),
      });
  } catch (error) {
    return error instanceof SchedulerError
      ? error
      : new SchedulerError('invalid-trigger', String(error), { cause: error });
  }
  return undefined;
}

/** A trigger's definition as compared between updates: a changed one is restarted (or checked again). */
const definitionOf = (trigger: Trigger) => JSON.stringify(trigger);

const hasBusyCode = (error: unknown) =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'session-busy';
/** The store's `session-busy`, thrown as it is or as the cause of the runtime's `busy` error (`executeTurn`). */
const isBusy = (error: unknown) => hasBusyCode(error) || (error instanceof Error && hasBusyCode(error.cause));

/**
 * Runs triggers: timers for `schedule`/`every`/`at`, file watches for `watch`. A due time is run once across every
 * process that shares the store: the run holds the trigger's lease (`trigger:<id>`) and first claims the due time.
 * Per trigger, runs never overlap (`overlap`), and a due time missed while nothing ran runs once (`catchUp`).
 */
export class Scheduler {
  private readonly entries = new Map<string, Entry>();
  private readonly clock: Clock;
  private readonly pending = new Set<Promise<void>>();
  /** The definition each invalid trigger was last refused with, so that it is said once, not at every update. */
  private readonly told = new Map<string, string>();
  private stopped = false;

  constructor(private readonly options: SchedulerOptions) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Starts (or keeps) these triggers and stops the others; a trigger whose definition changed is restarted. Each
   * trigger stands alone: one that cannot run (`invalid-trigger`) or fails to start (its store record, its watch) is
   * not running, is returned in `refused`, and is an `error` event; the others run. An invalid trigger is said once
   * per definition: given again unchanged it is refused without a second event, and runs once its definition is fixed.
   */
  async update(triggers: readonly Trigger[]): Promise<UpdateResult> {
    if (this.stopped) throw new SchedulerError('stopped', 'the scheduler was stopped');
    const ids = new Set(triggers.map((t) => t.id));
    for (const [id, entry] of this.entries) {
      const next = triggers.find((t) => t.id === id);
      if (!ids.has(id) || definitionOf(next!) !== definitionOf(entry.trigger)) await this.remove(entry);
    }
    for (const id of this.told.keys()) if (!ids.has(id)) this.told.delete(id);
    const refused: UpdateResult['refused'] = [];
    for (const trigger of triggers) {
      if (this.entries.has(trigger.id)) continue;
      const problem = triggerProblem(trigger);
      if (problem) {
        refused.push({ trigger, error: problem });
        const definition = definitionOf(trigger);
        if (this.told.get(trigger.id) !== definition) {
          this.told.set(trigger.id, definition);
          this.emit({ type: 'error', trigger, error: problem });
        }
        continue;
      }
      this.told.delete(trigger.id);
      try {
        await this.add(trigger);
      } catch (error) {
        // Forgotten, so that the next update starts it again rather than keep an entry that never fires.
        const entry = this.entries.get(trigger.id);
        if (entry) await this.remove(entry).catch(() => undefined);
        refused.push({ trigger, error });
        this.emit({ type: 'error', trigger, error });
      }
    }
    return { refused };
  }

  /** The trigger's next due time (of its timers); undefined for watch-only triggers. */
  next(id: string): Date | undefined {
    const times = [...(this.entries.get(id)?.timers.values() ?? [])].map((t) => t.dueAt);
    return times.length ? new Date(Math.min(...times)) : undefined;
  }

  /** How many runs are active now. */
  get running(): number {
    return [...this.entries.values()].filter((e) => e.active).length;
  }

  /** Resolves once no firing is being decided or run (for tests and `--once`). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Runs a trigger now, outside its timing (`birdie start --once`): no claim, the lease still held. */
  async fireNow(trigger: Trigger): Promise<void> {
    const entry = this.entries.get(trigger.id) ?? this.entryOf(trigger);
    await this.track(this.attempt(entry, 'once', this.clock.now(), false));
    await this.idle();
  }

  /**
   * Stops timers and watches, lets active runs finish for `graceMs`, then aborts them and waits until they return.
   */
  async stop(opts: { graceMs?: number } = {}): Promise<void> {
    this.stopped = true;
    for (const entry of this.entries.values()) {
      entry.queued = undefined;
      await this.remove(entry, false);
    }
    const active = () => [...this.entries.values()].flatMap((e) => (e.active ? [e.active] : []));
    if (active().length > 0 && (opts.graceMs ?? 0) > 0) {
      let handle: unknown;
      const grace = new Promise<void>((done) => {
        handle = this.clock.setTimer(done, opts.graceMs!);
      });
      await Promise.race([Promise.allSettled(active()), grace]);
      this.clock.clearTimer(handle);
    }
    // `stopNote` is what a tool this stop cuts off is answered with (the agent reads it from the abort's reason,
    // `@birdie/graph/stop-reason`, by shape: this package does not depend on the graph).
    const reason = Object.assign(new Error('birdie start is stopping'), {
      stopNote: 'Stopped because the scheduler (birdie start) stopped',
    });
    for (const entry of this.entries.values()) entry.controller?.abort(reason);
    await this.idle();
    this.entries.clear();
  }

  private entryOf(trigger: Trigger): Entry {
    return { trigger, timers: new Map(), removed: false };
  }

  private async add(trigger: Trigger): Promise<void> {
    const entry = this.entryOf(trigger);
    this.entries.set(trigger.id, entry);
    const now = this.clock.now();
    for (const kind of ['schedule', 'every', 'at'] as const) {
      if (trigger[kind] === undefined) continue;
      const calc = dueTimes({
        [kind]: trigger[kind],
        ...(kind === 'schedule' && trigger.timezone ? { timezone: trigger.timezone } : {}),
      });
      // A new trigger starts now (nothing before it is missed); a one-time task is due even if `at` has passed.
      const start = kind === 'at' ? Math.min(now, trigger.at!.getTime() - 1) : now;
      const last = (
        await this.options.store.triggers.arm(this.claimKey(trigger, kind), new Date(start))
      ).getTime();
      const missed = missedSince(calc, last, now);
      if (missed.newest !== undefined) {
        if (trigger.catchUp === false && kind !== 'at') {
          this.emit({
            type: 'skipped',
            trigger,
            label: this.label(trigger, kind),
            dueAt: new Date(missed.newest),
            reason: 'missed',
          });
        } else {
          this.track(this.due(entry, kind, missed.newest, true));
        }
      }
      const next = calc.next(missed.newest ?? last);
      if (next !== undefined) this.arm(entry, kind, next);
      // croner accepts `0 0 30 2 *` and finds no time for it: say so rather than wait for nothing.
      else if (kind === 'schedule' && missed.newest === undefined)
        this.emit({
          type: 'error',
          trigger,
          error: new SchedulerError(
            'invalid-trigger',
            `schedule ${trigger.schedule} never comes due: no date matches it`,
          ),
        });
    }
    if (trigger.watch?.length) {
      const watch = watchFiles({
        root: trigger.root ?? process.cwd(),
        patterns: trigger.watch,
        ...(trigger.debounce !== undefined ? { debounce: trigger.debounce } : {}),
        clock: this.clock,
        onChange: (paths) => this.track(this.due(entry, 'watch', this.clock.now(), false, paths)),
        onError: (error) => this.emit({ type: 'error', trigger, error }),
      });
      entry.watch = watch;
      await watch.ready;
    }
  }

  private async remove(entry: Entry, forget = true): Promise<void> {
    entry.removed = true;
    for (const timer of entry.timers.values()) this.clock.clearTimer(timer.handle);
    entry.timers.clear();
    await entry.watch?.close();
    entry.watch = undefined;
    if (forget && this.entries.get(entry.trigger.id) === entry) this.entries.delete(entry.trigger.id);
  }

  private arm(entry: Entry, kind: TimedKind, dueAt: number): void {
    const wait = dueAt - this.clock.now();
    const handle = this.clock.setTimer(() => {
      if (entry.removed) return;
      // A timer longer than setTimeout allows wakes early: wait again.
      if (this.clock.now() < dueAt) return this.arm(entry, kind, dueAt);
      const calc = dueTimes({
        [kind]: entry.trigger[kind],
        ...(kind === 'schedule' && entry.trigger.timezone ? { timezone: entry.trigger.timezone } : {}),
      });
      this.track(this.due(entry, kind, dueAt, false));
      // Fell behind (a suspended machine): the newest missed time runs once, then the grid goes on.
      let next = calc.next(dueAt);
      if (next !== undefined && next <= this.clock.now())
        next = missedSince(calc, dueAt, this.clock.now()).newest ?? next;
      if (next !== undefined) this.arm(entry, kind, next);
      else entry.timers.delete(kind);
    }, wait);
    entry.timers.set(kind, { handle, dueAt });
  }

  private async due(
    entry: Entry,
    kind: FiringKind,
    dueAt: number,
    late: boolean,
    paths?: string[],
  ): Promise<void> {
    const { trigger } = entry;
    const label = this.label(trigger, kind, paths);
    if (entry.active) {
      if (trigger.overlap === 'queue' && !entry.queued) {
        entry.queued = () => this.attempt(entry, kind, dueAt, late, paths);
        this.emit({ type: 'queued', trigger, label, dueAt: new Date(dueAt) });
      } else {
        this.emit({ type: 'skipped', trigger, label, dueAt: new Date(dueAt), reason: 'overlap' });
      }
      return;
    }
    await this.attempt(entry, kind, dueAt, late, paths);
  }

  private async attempt(
    entry: Entry,
    kind: FiringKind,
    dueAt: number,
    late: boolean,
    paths?: string[],
  ): Promise<void> {
    const { trigger } = entry;
    const label = this.label(trigger, kind, paths);
    const leaseKey = `trigger:${trigger.id}`;
    let lease: { release(): Promise<void> };
    try {
      lease = await this.options.store.leases.acquire(leaseKey, { waitMs: 0 });
    } catch (error) {
      if (isBusy(error))
        this.emit({ type: 'skipped', trigger, label, dueAt: new Date(dueAt), reason: 'busy' });
      else this.emit({ type: 'error', trigger, error });
      return;
    }
    try {
      if (kind !== 'once') {
        const claimed = await this.options.store.triggers.claim(
          this.claimKey(trigger, kind),
          new Date(dueAt),
          leaseKey,
        );
        if (!claimed) {
          this.emit({ type: 'skipped', trigger, label, dueAt: new Date(dueAt), reason: 'claimed' });
          return;
        }
      }
      const controller = new AbortController();
      const firing: Firing = {
        trigger,
        kind,
        label,
        dueAt: new Date(dueAt),
        prompt: promptOf(trigger, paths),
        late,
        signal: controller.signal,
        ...(paths ? { paths } : {}),
      };
      entry.controller = controller;
      const run = this.execute(firing);
      entry.active = run;
      try {
        await run;
      } finally {
        entry.active = undefined;
        entry.controller = undefined;
      }
    } catch (error) {
      this.emit({ type: 'error', trigger, error });
    } finally {
      await lease.release();
    }
    const queued = entry.queued;
    entry.queued = undefined;
    if (queued && !this.stopped) this.track(queued());
  }

  private async execute(firing: Firing): Promise<void> {
    this.emit({ type: 'run-start', firing });
    try {
      await this.options.run(firing);
      this.emit({ type: 'run-end', firing });
    } catch (error) {
      this.emit({ type: 'run-end', firing, error });
    }
  }

  private track(work: Promise<void>): Promise<void> {
    const tracked = work.catch(() => undefined).finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
    return tracked;
  }

  private claimKey(trigger: Trigger, kind: FiringKind): string {
    return `${trigger.id}:${kind}`;
  }

  private label(trigger: Trigger, kind: FiringKind, paths?: string[]): string {
    if (kind === 'watch') return `watch ${(paths ?? trigger.watch ?? []).join(', ')}`;
    if (kind === 'once') return 'once';
    return timingLabel({
      [kind]: trigger[kind],
      ...(kind === 'schedule' && trigger.timezone ? { timezone: trigger.timezone } : {}),
    });
  }

  private emit(event: SchedulerEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // A listener's failure is not the scheduler's.
    }
  }
}

/** The prompt of a firing: the trigger's, and for a watch the changed paths. */
export function promptOf(trigger: Trigger, paths?: string[]): string {
  const base = trigger.prompt ?? 'You were triggered.';
  if (!paths?.length) return base;
  return `${base}\n\nChanged files:\n${paths.map((p) => `- ${p}`).join('\n')}`;
}
