import { turnResultJson } from '@birdie/graph/event-json';
import type { Store, TurnRecord } from '@birdie/store';
import { EVENT_STREAM_HEADERS, EventStream } from './event-stream.js';
import { apiErrorOf } from './store-errors.js';

export interface FollowOptions {
  /** How often the store is asked for new events, ms. */
  pollMs: number;
  /**
   * A turn with no new event for this long, whose session nobody holds (or that went on with a newer turn), was lost
   * with its worker, ms.
   */
  lostTurnMs: number;
  keepAliveMs: number;
  onError(error: unknown): void;
}

export interface FollowRequest {
  sessionId: string;
  userId: string;
  /** Events after this id (`Last-Event-ID`); 0 for all that are kept. */
  afterId: number;
  /** Only this turn's events, until it ends; without it, the session's events until its newest turn ends. */
  turnId?: number;
}

const PAGE = 500;

/**
 * Streams recorded events from the store to clients that reattach: the events after an id, then new ones as they
 * are recorded (the store is polled, so the turn may run on any worker), until the turn followed has ended. A
 * turn whose worker died (no event for `lostTurnMs`, and nobody holds its session, or the session went on with a newer
 * turn) is ended here as `died`, once, for every follower.
 */
export class Followers {
  private readonly active = new Set<AbortController>();

  constructor(
    private readonly store: Store,
    private readonly options: FollowOptions,
  ) {}

  get size(): number {
    return this.active.size;
  }

  respond(request: FollowRequest): Response {
    const stream = new EventStream(this.options.keepAliveMs);
    const controller = new AbortController();
    this.active.add(controller);
    void this.follow(request, stream, controller.signal).finally(() => {
      this.active.delete(controller);
      stream.close();
    });
    return new Response(stream.body, { status: 200, headers: EVENT_STREAM_HEADERS });
  }

  /** Ends every follower's stream (the server is closing). */
  stop(): void {
    for (const controller of this.active) controller.abort();
  }

  private async follow(r: FollowRequest, stream: EventStream, signal: AbortSignal): Promise<void> {
    let after = r.afterId;
    const deliver = async () => {
      for (;;) {
        const page = await this.store.turns.events(r.sessionId, r.userId, {
          afterId: after,
          limit: PAGE,
          ...(r.turnId !== undefined ? { turnId: r.turnId } : {}),
        });
        for (const record of page) {
          stream.push(record.event, record.id);
          after = record.id;
        }
        if (page.length < PAGE) return;
      }
    };
    try {
      while (stream.open && !signal.aborted) {
        await deliver();
        const turn =
          r.turnId !== undefined
            ? await this.store.turns.get(r.turnId, r.userId)
            : await this.store.turns.latest(r.sessionId, r.userId);
        // Ended: its last events were recorded before its end, so one more read has them all.
        if (!turn || turn.state === 'ended') return await deliver();
        if (await this.lost(turn)) {
          await this.store.turns.end(turn.id, 'died', lostEvents(turn));
          continue;
        }
        await pause(this.options.pollMs, signal);
      }
    } catch (error) {
      const known = apiErrorOf(error, r.sessionId);
      if (!known) this.options.onError(error);
      stream.push({
        type: 'error',
        error: {
          code: known?.code ?? 'internal',
          message: known?.message ?? "the turn's events could not be read",
        },
      });
    }
  }

  /**
   * Silent for `lostTurnMs`, and nobody holds its session or the session has gone on with a newer turn that started
   * running (a session runs one turn at a time: the newer one got the session after this one's worker let it go). A
   * newer turn still `starting` proves nothing: a second request begins its turn before it is refused the session.
   * Silence alone proves nothing either: a live worker marks its turn alive every third of `lostTurnMs`
   * (`TurnRecorder`), also between giving its session back and recording the turn's end.
   */
  private async lost(turn: TurnRecord): Promise<boolean> {
    if (Date.now() - turn.updatedAt.getTime() < this.options.lostTurnMs) return false;
    if ((await this.store.leases.holder(turn.sessionId)) === undefined) return true;
    const newest = await this.store.turns.latest(turn.sessionId, turn.userId);
    return newest !== undefined && newest.id > turn.id && newest.state !== 'starting';
  }
}

/** What a lost turn's followers are told, recorded as its last events. */
function lostEvents(turn: TurnRecord): Array<{ type: string } & Record<string, unknown>> {
  return [
    {
      type: 'error',
      error: {
        code: 'turn-lost',
        message:
          'the worker running this turn stopped; the steps it completed are in the session, the run log says how it ended',
      },
    },
    // Its own `done` never came: it is recorded with the result, in the turn's last transaction.
    { type: 'done', status: 'error' },
    { ...turnResultJson({ status: 'error', session: turn.sessionId, inputTokens: 0, outputTokens: 0 }) },
  ];
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
