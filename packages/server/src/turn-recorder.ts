import type { Store, TurnEventRecord } from '@birdie/store';
import { isStoreError } from '@birdie/store/errors';
import type { EventStream } from './event-stream.js';

export type StreamEvent = { type: string } & Record<string, unknown>;

/**
 * What is waiting to be recorded and sent: an event (sent with its id; `recorded`, when what is written says more than
 * what is sent), a token (sent at once), recorded tokens.
 */
type Item =
  | { kind: 'event'; event: StreamEvent; recorded?: StreamEvent }
  | { kind: 'token'; event: StreamEvent }
  | { kind: 'tokens'; event: StreamEvent };

/**
 * Records a running turn's events in the store (for replay on any worker) and streams them to the client that
 * submitted it, in one order: each event goes to the client once it is recorded, with its id. `token` events go to
 * the client without waiting to be recorded (no id) and are recorded coalesced: consecutive tokens of one message
 * (and agent) become one event, written at the next other event or after `tokenFlushMs`, whose id then reaches the
 * client alone (`EventStream.mark`). What arrives in one step of the event loop, or while a write is in flight, is
 * written next in one append (one transaction); what still waits when the turn ends goes with its end.
 *
 * When the store cannot take an event (its database cannot be reached), the client still gets it, without an id, and
 * it is never recorded: a client resuming with `Last-Event-ID` has it already, a replay goes without it. The turn's
 * last events (its error, `done` and `result`) are recorded once the store takes them again, retried by this worker
 * (`endRetryMs`, doubling up to `MAX_END_RETRY_MS`), so the log ends as the live stream did rather than as a lost turn.
 *
 * From its first event until its end is recorded, a turn that writes nothing for `aliveMs` is marked alive (an empty
 * append moves its `updatedAt`): a follower on another worker takes a turn silent for `lostTurnMs` whose session nobody
 * holds for one whose worker died, and a turn is silent and unheld for a moment at every end (the runtime gives the
 * session back before its summary comes here) and silent while a tool runs.
 */
export class TurnRecorder {
  private queue: Item[] = [];
  private pumping: Promise<void> | undefined;
  private tokens: StreamEvent | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failed = false;
  /** Set while `end` records: the pump leaves the queue to it. */
  private ending = false;
  private alive: NodeJS.Timeout | undefined;
  /** Whether anything was written since the last beat of `alive`. */
  private wrote = false;
  /** Set once the turn's end was asked for (`end`) or given up (`abandon`): no beat starts after it. */
  private over = false;

  constructor(
    private readonly store: Store,
    private readonly turnId: number,
    private readonly live: EventStream,
    private readonly options: {
      tokenFlushMs: number;
      endRetryMs?: number;
      /** How long the turn may write nothing before it is marked alive, ms: a third of the workers' `lostTurnMs`. */
      aliveMs?: number;
      onError(error: unknown): void;
    },
  ) {}

  /**
   * `recorded`: what the store keeps of the event, when followers are told more than the client that runs the turn
   * (the turn's `session` event names its prompt there; its sender knows it).
   */
  push(event: StreamEvent, recorded?: StreamEvent): void {
    this.beat();
    if (event.type === 'token' && typeof event.text === 'string') {
      this.coalesce(event);
      this.enqueue({ kind: 'token', event });
      return;
    }
    this.flushTokens();
    this.enqueue({ kind: 'event', event, ...(recorded ? { recorded } : {}) });
  }

  /**
   * Records the turn's last events with its end (the turn's `status`) in one transaction, after everything pushed
   * before, and sends them. Whatever is still waiting to be written (the `done` of the turn, most often) goes in that
   * same transaction: one write fewer per turn. A turn ended already (found lost by a follower) records nothing more.
   */
  async end(status: string, last: StreamEvent[]): Promise<void> {
    this.flushTokens();
    this.ending = true;
    this.over = true;
    let retrying = false;
    try {
      while (this.pumping) await this.pumping;
      const batch = this.queue.splice(0);
      const waiting = batch.flatMap(written);
      let recorded: Array<TurnEventRecord | undefined> = [];
      try {
        recorded = (await this.store.turns.end(this.turnId, status, [...waiting, ...last])) ?? [];
      } catch (error) {
        this.fail(error);
        // Those waiting were sent (below) without an id: only the turn's end is recorded later.
        if (isTransient(error)) {
          retrying = true;
          this.retryEnd(status, last);
        }
      }
      this.send(batch, recorded);
      for (const [i, event] of last.entries()) this.live.push(event, recorded[waiting.length + i]?.id);
    } finally {
      this.ending = false;
      // Alive until its end is recorded: while the end is retried too.
      if (!retrying) clearInterval(this.alive);
    }
  }

  /**
   * The turn ends without `end` (refused before it ran, or its handling failed): it is no longer marked alive, so a
   * follower finds it lost once it is silent for `lostTurnMs`. Nothing once `end` was called.
   */
  abandon(): void {
    if (this.over) return;
    this.over = true;
    clearInterval(this.alive);
  }

  /** Starts marking the turn alive while it writes nothing (once, at its first event). */
  private beat(): void {
    if (this.alive || this.over || this.options.aliveMs === undefined) return;
    this.alive = setInterval(() => {
      if (this.wrote || this.pumping) {
        this.wrote = false;
        return;
      }
      this.store.turns.append(this.turnId, []).catch((error: unknown) => {
        // The store is away for a while (the turn's own writes say so), closed with the server, or the turn was ended
        // (found lost) or pruned: the next beat tries again, or `end` stops them.
        if (!isTransient(error) && !isStoreError(error, 'invalid-argument', 'not-found', 'closed'))
          this.fail(error);
      });
    }, this.options.aliveMs);
    this.alive.unref();
  }

  /**
   * Records the turn's end once the store takes it again, in the background (the client's stream has ended). Stops
   * at the first answer: recorded, or ended already (a follower found the turn lost first), or a failure that waiting
   * will not mend (the store closed with the server).
   */
  private retryEnd(status: string, last: StreamEvent[]): void {
    let delay = this.options.endRetryMs ?? 500;
    const attempt = () => {
      this.store.turns.end(this.turnId, status, last).then(
        () => clearInterval(this.alive),
        (error: unknown) => {
          if (!isTransient(error)) return clearInterval(this.alive);
          delay = Math.min(delay * 2, MAX_END_RETRY_MS);
          setTimeout(attempt, delay).unref();
        },
      );
    };
    setTimeout(attempt, delay).unref();
  }

  private coalesce(token: StreamEvent): void {
    const open = this.tokens;
    if (open && sameMessage(open, token)) {
      open.text = `${open.text as string}${token.text as string}`;
    } else {
      this.flushTokens();
      this.tokens = { ...token };
    }
    this.timer ??= setTimeout(() => this.flushTokens(), this.options.tokenFlushMs);
  }

  private flushTokens(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.tokens) return;
    this.enqueue({ kind: 'tokens', event: this.tokens });
    this.tokens = undefined;
  }

  private enqueue(item: Item): void {
    this.queue.push(item);
    this.pumping ??= this.pump();
  }

  /**
   * Writes what is queued in one append, sends it in order, and again until the queue is empty; once `end` began,
   * what is queued waits for the end's own transaction.
   */
  private async pump(): Promise<void> {
    try {
      // Let the events of one step of the event loop join the first write (a turn's events come a few microtasks
      // apart: waiting for the next check phase makes one transaction of what a microtask would split in several).
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0 && !this.ending) {
        const batch = this.queue.splice(0);
        this.send(batch, await this.record(batch.flatMap(written)));
      }
    } finally {
      // In the same synchronous step as the last look at the queue: an item queued after it starts a new pump.
      this.pumping = undefined;
    }
  }

  /** Sends a written batch in order: tokens as they came, events with their ids, recorded tokens as an id alone. */
  private send(batch: Item[], records: Array<TurnEventRecord | undefined>): void {
    let next = 0;
    for (const item of batch) {
      if (item.kind === 'token') {
        this.live.push(item.event);
        continue;
      }
      const id = records[next++]?.id;
      if (item.kind === 'event') this.live.push(item.event, id);
      else if (id !== undefined) this.live.mark(id);
    }
  }

  private async record(events: StreamEvent[]): Promise<Array<TurnEventRecord | undefined>> {
    if (events.length === 0) return [];
    this.wrote = true;
    try {
      return await this.store.turns.append(this.turnId, events);
    } catch (error) {
      this.fail(error);
      return [];
    }
  }

  /** Reported once: a store that fails keeps failing, and the client still gets its events. */
  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.options.onError(error);
  }
}

/** What the store is given of an item: tokens are written coalesced, an event as recorded. */
function written(item: Item): StreamEvent[] {
  if (item.kind === 'token') return [];
  return [item.kind === 'event' ? (item.recorded ?? item.event) : item.event];
}

/** How long a turn's end waits at most between two attempts to record it, ms. */
const MAX_END_RETRY_MS = 5_000;

/** A store failure that passes: its database is back, unlocked, writable again. */
function isTransient(error: unknown): boolean {
  return isStoreError(error, 'unavailable', 'locked', 'read-only', 'disk-full');
}

function sameMessage(a: StreamEvent, b: StreamEvent): boolean {
  return JSON.stringify(a.agent) === JSON.stringify(b.agent);
}
