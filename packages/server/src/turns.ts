import { StopReason } from '@birdie/graph/stop-reason';
import { agentEventJson, turnResultJson } from '@birdie/graph/event-json';
import type { Session, Store, TurnRecord } from '@birdie/store';
import { withoutHolder } from '@birdie/store/errors';
import { ApiError } from './errors.js';
import { EVENT_STREAM_HEADERS, EventStream } from './event-stream.js';
import { keyReusedError } from './idempotency.js';
import { admitTurn, type TurnAdmission, type TurnLimits } from './limits.js';
import { McpRequests } from './mcp-requests.js';
import type { ServeRuntime, TurnEvent, TurnInput } from './runtime.js';
import { apiErrorOf } from './store-errors.js';
import { turnFailureEvent } from './turn-failure.js';
import { Followers } from './turn-follow.js';
import type { TurnContext, TurnObserver } from './turn-observer.js';
import { type StreamEvent, TurnRecorder } from './turn-recorder.js';
import type { Workspaces } from './workspaces.js';

/** A store call of a request: its failure as the API words it. */
async function storeCall<T>(sessionId: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw apiErrorOf(error, sessionId) ?? error;
  }
}

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * How a turn was submitted: the client's `Idempotency-Key` and a digest of its request, when it sent a key; the
 * request's id (`X-Request-Id`), for the turn's log entries.
 */
export interface Submission {
  key?: string;
  digest?: string;
  requestId?: string;
}

export interface TurnsOptions {
  cancelPollMs: number;
  keepAliveMs: number;
  /** How often a reattached client's stream asks the store for new events, ms. */
  eventPollMs: number;
  /** How long tokens wait to be recorded as one event, ms. */
  tokenFlushMs: number;
  /** How long a turn (its key and events) is kept after it ended, ms. */
  retentionMs: number;
  /**
   * A turn with no new event for this long, whose session nobody holds (or that went on with a newer turn), was lost
   * with its worker, ms. A worker marks its running turns alive every third of it, so every worker of one store must
   * use the same value.
   */
  lostTurnMs: number;
  /** The per-user turn limits (`serve.limits`), counted across workers in the store's run log. */
  limits?: TurnLimits;
  /** The users' workspaces: where each turn's tools run, and the byte quota checked before it starts. */
  workspaces?: Workspaces;
  /** Told of the turns this worker runs (the metrics, the log); a resend that joins a turn is not a new one. */
  observers?: TurnObserver[];
  /** A failure nobody is told of in full: the turn log's (`where` unset), or a turn's (`where` names it). */
  onError(error: unknown, where?: string, context?: { requestId?: string }): void;
}

const TURN_DEFAULTS = {
  eventPollMs: 500,
  tokenFlushMs: 250,
  retentionMs: 24 * 60 * 60 * 1000,
  lostTurnMs: 60_000,
  onError: () => {},
};

/**
 * The turns this worker runs. A turn's session lease is the only lock: a second turn of the same session, here or on
 * another worker, is refused by the store (`session-busy` → 409) before any response starts. Cancel reaches the
 * worker that runs the turn through the lease row (`leases.requestCancel`), which the running turn polls.
 *
 * Every turn is recorded in the store's turn log with its events, so a client that lost its stream reattaches
 * (`followers`) on any worker; a turn submitted with an `Idempotency-Key` is submitted once: the same key again
 * follows that turn instead of running another.
 */
export class Turns {
  private readonly running = new Map<string, Running>();
  private accepting = true;
  private prunedAt = 0;
  private readonly options: TurnsOptions;
  readonly followers: Followers;
  /** MCP servers' requests waiting for the API client's answer (see mcp-requests.ts). */
  readonly mcpRequests = new McpRequests();

  constructor(
    private readonly runtime: ServeRuntime,
    options: Pick<TurnsOptions, 'cancelPollMs' | 'keepAliveMs'> & Partial<TurnsOptions>,
  ) {
    this.options = { ...TURN_DEFAULTS, ...options };
    this.followers = new Followers(runtime.store, {
      pollMs: this.options.eventPollMs,
      lostTurnMs: this.options.lostTurnMs,
      keepAliveMs: this.options.keepAliveMs,
      onError: this.options.onError,
    });
  }

  get size(): number {
    return this.running.size;
  }

  /** False once `drain` began: the worker takes no new turns (and is not ready). */
  get isAccepting(): boolean {
    return this.accepting;
  }

  /**
   * Starts the turn and answers with its event stream, or throws the `ApiError` that refused it. With a key used
   * on the session before, answers with that turn's stream instead (422 when the request differs).
   */
  async start(session: Session, input: TurnInput, submission: Submission = {}): Promise<Response> {
    if (!this.accepting) throw new ApiError('unavailable', 'the server is shutting down', { retryAfter: 1 });
    this.prune();
    const { store } = this.runtime;
    const { turn, created } = await storeCall(session.id, () =>
      store.turns.begin({
        sessionId: session.id,
        userId: session.userId,
        ...(submission.key !== undefined ? { key: submission.key } : {}),
        ...(submission.digest !== undefined ? { requestDigest: submission.digest } : {}),
      }),
    );
    if (!created) return this.join(session, input, submission, turn);
    // The user's turn limits and workspace quota count new turns only (a new turn and an approval's continuation both
    // start a run); a resend with its key follows its turn instead. Refused: nothing ran under the key.
    let workspace: string | undefined;
    let admission: TurnAdmission | undefined;
    try {
      // Takes one of the user's turn slots (a store lease), held until the turn ends however it ends.
      if (this.options.limits) admission = await admitTurn(store, session.userId, this.options.limits);
      // Before anything starts: a user over the workspace quota gets a 413, not a stream.
      workspace = await this.options.workspaces?.admit(session);
    } catch (error) {
      // Refused before it ran: it holds no slot and takes no place in the user's minute.
      await admission?.withdraw();
      await storeCall(session.id, () => store.turns.discard(turn.id));
      throw error;
    }
    try {
      return await this.run(session, input, turn, workspace, submission.requestId, admission);
    } catch (error) {
      // Refused before it ran (session busy, the runtime failed to start): its slot and its place in the minute are
      // free again.
      await admission?.withdraw();
      throw error;
    }
  }

  /** The turn a key was used for: once it started, its stream (replay, then live); refused meanwhile, start again. */
  private async join(
    session: Session,
    input: TurnInput,
    submission: Submission,
    first: TurnRecord,
  ): Promise<Response> {
    if (first.requestDigest !== submission.digest) throw keyReusedError(submission.key ?? '');
    let turn: TurnRecord | undefined = first;
    const { store } = this.runtime;
    while (turn?.state === 'starting') {
      if (Date.now() - turn.updatedAt.getTime() >= this.options.lostTurnMs) {
        // Its worker died before the turn started: nothing ran under the key.
        await storeCall(session.id, () => store.turns.discard(turn!.id));
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, this.options.eventPollMs));
      const id: number = turn.id;
      turn = await storeCall(session.id, () => store.turns.get(id, session.userId));
    }
    if (!turn || turn.state === 'starting') return this.start(session, input, submission);
    return this.followers.respond({
      sessionId: session.id,
      userId: session.userId,
      afterId: 0,
      turnId: turn.id,
    });
  }

  private async run(
    session: Session,
    input: TurnInput,
    turn: TurnRecord,
    workspace: string | undefined,
    requestId: string | undefined,
    admission: TurnAdmission | undefined,
  ): Promise<Response> {
    const { store } = this.runtime;
    const observers = this.options.observers ?? [];
    const context: TurnContext = {
      sessionId: session.id,
      userId: session.userId,
      ...(requestId !== undefined ? { requestId } : {}),
    };
    let startedAt = 0;
    const seconds = () => (performance.now() - startedAt) / 1000;
    const controller = new AbortController();
    const stream = new EventStream(this.options.keepAliveMs);
    const recorder = new TurnRecorder(store, turn.id, stream, {
      tokenFlushMs: this.options.tokenFlushMs,
      endRetryMs: this.options.eventPollMs,
      ...aliveEvery(this.options.lostTurnMs),
      onError: this.options.onError,
    });
    // The turn's `done` waits for its summary: a turn that failed without an `error` event gets one before it.
    let done: StreamEvent | undefined;
    let errorSent = false;
    let poll: NodeJS.Timeout | undefined;
    let leased!: () => void;
    const held = new Promise<void>((resolve) => {
      leased = resolve;
    });
    const running = this.runtime.runTurn(session, input, {
      signal: controller.signal,
      ...(workspace !== undefined ? { workspace } : {}),
      onLeased: (lease) => {
        // The turn's first event: recorded only now, so a refused turn leaves nothing to replay. Recorded with the
        // prompt that started it: a client that replays it (a reload, another tab) tells by it whether the history's
        // last prompt is this turn's or another client's (the CLI's). Its sender knows the prompt: it is not sent back.
        const started = {
          type: 'session',
          id: session.id,
          user: session.userId,
          provider: this.runtime.provider,
        };
        recorder.push(started, typeof input === 'string' ? { ...started, prompt: input } : undefined);
        poll = setInterval(() => {
          void lease.cancelRequested().then((asked) => {
            if (asked && !controller.signal.aborted) controller.abort(new Error('cancelled by the user'));
          });
        }, this.options.cancelPollMs);
        poll.unref();
        startedAt = performance.now();
        for (const o of observers) o.started(context);
        leased();
      },
      mcp: this.mcpRequests.handlersFor(
        session.id,
        (event) => recorder.push({ ...event }),
        controller.signal,
      ),
      // The approvals a turn waits for close its stream (below), as one event with all of them.
      onEvent: (event) => {
        for (const o of observers) o.event(context, event);
        // A subagent's error is not the turn's (its parent gets it as the `task` result).
        if (event.type === 'error' && (event.agent?.length ?? 0) <= 1) errorSent = true;
        if (event.type === 'done') done = { ...event };
        else if (event.type !== 'approval-request')
          recorder.push({ type: event.type, ...agentEventJson(withoutHolderIn(event)) });
      },
    });
    const first = await Promise.race([
      held.then(() => undefined),
      running.then(
        () => undefined,
        (error: unknown) => ({ error }),
      ),
    ]);
    if (first) {
      recorder.abandon();
      clearInterval(poll);
      stream.close();
      // Nothing ran: the key (if any) is free for the next attempt.
      await store.turns.discard(turn.id).catch(() => undefined);
      throw apiErrorOf(first.error, session.id) ?? first.error;
    }
    const ended = running
      .then(
        (summary) => {
          for (const o of observers)
            o.finished(context, { status: summary.status, seconds: seconds(), summary });
          const end = done ? [done] : [];
          if (summary.status === 'interrupted' && summary.pending?.length)
            return recorder.end('interrupted', [
              ...end,
              { type: 'approval-request', requests: summary.pending },
            ]);
          return recorder.end(summary.status, [
            // A store call of the turn failed (the database went away): the runtime ended the turn `error` and put
            // why in its summary only.
            ...(summary.status === 'error' && !errorSent ? [turnFailureEvent(summary.errorCode)] : []),
            ...end,
            { ...turnResultJson({ ...summary, session: session.id }) },
          ]);
        },
        (error: unknown) => {
          for (const o of observers) o.finished(context, { status: 'error', seconds: seconds(), error });
          const mapped = apiErrorOf(error, session.id);
          // Not a state of the store the client is told of: a fault (a module that no longer loads, a bug). The
          // client gets a generic sentence; the operator's error log gets what happened.
          if (!mapped)
            this.options.onError(
              error,
              `turn of session ${session.id}`,
              requestId !== undefined ? { requestId } : {},
            );
          return recorder.end('error', [
            {
              type: 'error',
              error: {
                code: mapped?.code ?? 'internal',
                message: mapped?.message ?? 'the turn could not be recorded',
              },
            },
            // The runtime sends its `done` only for a turn it ends; the stream promises one all the same.
            { type: 'done', status: 'error' },
            { ...turnResultJson({ status: 'error', session: session.id, inputTokens: 0, outputTokens: 0 }) },
          ]);
        },
      )
      .finally(async () => {
        // Its end recorded, or retried in the background; ended without it (an observer threw): no longer alive.
        recorder.abandon();
        clearInterval(poll);
        // Done, error, cancelled or its client gone: the turn ended, and its slot is the next turn's (given back
        // before its stream ends, so a client that saw the end may start another at once).
        await admission?.release();
        stream.close();
        this.running.delete(session.id);
      });
    this.running.set(session.id, { controller, done: ended });
    return new Response(stream.body, { status: 200, headers: EVENT_STREAM_HEADERS });
  }

  /** Forgets turns that ended more than `retentionMs` ago, at most once a minute per worker (any worker may). */
  private prune(): void {
    const now = Date.now();
    if (now - this.prunedAt < Math.min(60_000, this.options.retentionMs)) return;
    this.prunedAt = now;
    this.runtime.store.turns.prune(new Date(now - this.options.retentionMs)).catch(this.options.onError);
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
   * up to `cancelWaitMs` to record how they ended (the run log says `cancelled`, the lease is released; a tool the
   * cancel stopped is answered "Stopped because the server shut down" and its call is recorded ended). A turn
   * that does not end even then (a tool deaf to the abort) is left as a killed worker leaves it: its lease expires and
   * the run log's recovery marks it; the stop must not wait on it forever.
   */
  async drain(graceMs: number, cancelWaitMs = 5_000): Promise<{ finished: number; cancelled: number }> {
    this.accepting = false;
    const all = [...this.running.values()];
    if (all.length === 0) {
      this.followers.stop();
      return { finished: 0, cancelled: 0 };
    }
    await settledWithin(all, graceMs);
    const left = [...this.running.values()];
    for (const r of left) r.controller.abort(shutdownReason());
    await settledWithin(left, cancelWaitMs);
    this.followers.stop();
    return { finished: all.length - left.length, cancelled: left.length };
  }
}

/**
 * Why the drain cancels a turn: the stop's reason, which its cut-off tool calls' answers repeat (not "Cancelled by the
 * user": nobody cancelled, the server shut down).
 */
function shutdownReason(): StopReason {
  return new StopReason('the server is shutting down', 'Stopped because the server shut down');
}

/** Waits for the turns to end, or `ms`, whichever comes first. */
async function settledWithin(turns: ReadonlyArray<{ done: Promise<unknown> }>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(turns.map((t) => t.done)),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * An event as the session's user may read it: a turn stopped by a busy or taken-over session is said without the
 * process and the machine holding it (the observers, the operator's log among them, get the event as it was).
 */
function withoutHolderIn<E extends TurnEvent>(event: E): E {
  if (event.type !== 'error') return event;
  const { error } = event as Extract<TurnEvent, { type: 'error' }>;
  const message = withoutHolder(error.code, error.message);
  return message === error.message ? event : { ...event, error: { ...error, message } };
}

/**
 * How often a worker marks a silent turn alive: a third of `lostTurnMs`, within what a timer can wait; never for a
 * `lostTurnMs` that is not finite (no turn is ever taken for lost).
 */
function aliveEvery(lostTurnMs: number): { aliveMs?: number } {
  if (!Number.isFinite(lostTurnMs)) return {};
  return { aliveMs: Math.min(MAX_TIMER_MS, Math.max(1, Math.floor(lostTurnMs / 3))) };
}

/** The longest a Node timer waits; a longer delay fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
