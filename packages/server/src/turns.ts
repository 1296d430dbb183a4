import { agentEventJson, turnResultJson } from '@birdie/graph/event-json';
import type { Session, Store } from '@birdie/store';
import { ApiError } from './errors.js';
import { EVENT_STREAM_HEADERS, EventStream } from './event-stream.js';
import type { ServeRuntime, TurnInput } from './runtime.js';
import { apiErrorOf } from './store-errors.js';
import type { Workspaces } from './workspaces.js';

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The turns this worker runs. A turn's session lease is the only lock: a second turn of the same session, here or on
 * another worker, is refused by the store (`session-busy` → 409) before any response starts. Cancel reaches the
 * worker that runs the turn through the lease row (`leases.requestCancel`), which the running turn polls.
 */
export class Turns {
  private readonly running = new Map<string, Running>();
  private accepting = true;

  constructor(
    private readonly runtime: ServeRuntime,
    private readonly options: { cancelPollMs: number; keepAliveMs: number; workspaces?: Workspaces },
  ) {}

  get size(): number {
    return this.running.size;
  }

  /** Starts the turn and answers with its event stream, or throws the `ApiError` that refused it. */
  async start(session: Session, input: TurnInput): Promise<Response> {
    if (!this.accepting) throw new ApiError('unavailable', 'the server is shutting down', { retryAfter: 1 });
    // Before anything starts: a user over the workspace quota gets a 413, not a stream.
    const workspace = await this.options.workspaces?.admit(session);
    const controller = new AbortController();
    const stream = new EventStream(this.options.keepAliveMs);
    let poll: NodeJS.Timeout | undefined;
    let leased!: () => void;
    const held = new Promise<void>((resolve) => {
      leased = resolve;
    });
    stream.push({ type: 'session', id: session.id, user: session.userId, provider: this.runtime.provider });
    const turn = this.runtime.runTurn(session, input, {
      signal: controller.signal,
      ...(workspace !== undefined ? { workspace } : {}),
      onLeased: (lease) => {
        poll = setInterval(() => {
          void lease.cancelRequested().then((asked) => {
            if (asked && !controller.signal.aborted) controller.abort(new Error('cancelled by the user'));
          });
        }, this.options.cancelPollMs);
        poll.unref();
        leased();
      },
      // The approvals a turn waits for close its stream (below), as one event with all of them.
      onEvent: (event) => {
        if (event.type === 'done') stream.push({ ...event });
        else if (event.type !== 'approval-request')
          stream.push({ type: event.type, ...agentEventJson(event) });
      },
    });
    const first = await Promise.race([
      held.then(() => undefined),
      turn.then(
        () => undefined,
        (error: unknown) => ({ error }),
      ),
    ]);
    if (first) {
      clearInterval(poll);
      stream.close();
      throw apiErrorOf(first.error, session.id) ?? first.error;
    }
    const done = turn
      .then(
        (summary) => {
          if (summary.status === 'interrupted' && summary.pending?.length) {
            stream.push({ type: 'approval-request', requests: summary.pending });
            return;
          }
          stream.push({ ...turnResultJson({ ...summary, session: session.id }) });
        },
        (error: unknown) => {
          const mapped = apiErrorOf(error, session.id);
          stream.push({
            type: 'error',
            error: {
              code: mapped?.code ?? 'internal',
              message: mapped?.message ?? 'the turn could not be recorded',
            },
          });
          stream.push({
            ...turnResultJson({ status: 'error', session: session.id, inputTokens: 0, outputTokens: 0 }),
          });
        },
      )
      .finally(() => {
        clearInterval(poll);
        stream.close();
        this.running.delete(session.id);
      });
    this.running.set(session.id, { controller, done });
    return new Response(stream.body, { status: 200, headers: EVENT_STREAM_HEADERS });
  }

  /**
   * Asks whoever runs the session's turn to stop: this worker directly, another one through the store. `false` when
   * no turn of the session is running anywhere.
   */
  async cancel(store: Store, sessionId: string): Promise<boolean> {
    const here = this.running.get(sessionId);
    if (here) {
      here.controller.abort(new Error('cancelled by the user'));
      return true;
    }
    return (await store.leases.requestCancel(sessionId)) !== undefined;
  }

  /**
   * Stops taking turns, lets the running ones finish for up to `graceMs`, then cancels the rest and waits for them
   * to record how they ended (the run log says `interrupted`, the lease is released).
   */
  async drain(graceMs: number): Promise<{ finished: number; cancelled: number }> {
    this.accepting = false;
    const all = [...this.running.values()];
    if (all.length === 0) return { finished: 0, cancelled: 0 };
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(all.map((r) => r.done)),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
    const left = [...this.running.values()];
    for (const r of left) r.controller.abort(new Error('the server is shutting down'));
    await Promise.allSettled(left.map((r) => r.done));
    return { finished: all.length - left.length, cancelled: left.length };
  }
}
