import { isStoreError } from '@birdie/store/errors';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { TurnEvent } from './runtime.js';
import type { TurnContext, TurnEnd, TurnObserver } from './turn-observer.js';

/** Store failures that are about the store, not the request (a missing session is the caller's, not the store's). */
const REQUEST_CODES = new Set([
  'not-found',
  'not-owner',
  'invalid-id',
  'invalid-argument',
  'session-busy',
  'lease-lost',
]);

/**
 * This worker's metrics in the Prometheus text format, in a registry of its own (two servers in one process do not
 * share counters). Everything is counted from what the server already sees: the turns' events and ends, and the
 * errors its handlers meet; the graph knows nothing of it.
 */
export class ServerMetrics implements TurnObserver {
  readonly registry = new Registry();
  private readonly turnsStarted = new Counter({
    name: 'birdie_turns_started_total',
    help: 'Turns that started on this worker (the session lease was held).',
    registers: [this.registry],
  });
  private readonly turnsFinished = new Counter({
    name: 'birdie_turns_finished_total',
    help: 'Turns that ended on this worker, by status.',
    labelNames: ['status'],
    registers: [this.registry],
  });
  private readonly turnSeconds = new Histogram({
    name: 'birdie_turn_duration_seconds',
    help: 'How long turns ran, from the lease to their end, by status.',
    labelNames: ['status'],
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
    registers: [this.registry],
  });
  private readonly toolCalls = new Counter({
    name: 'birdie_tool_calls_total',
    help: 'Tool calls that ended, by tool and outcome (ok or error).',
    labelNames: ['tool', 'outcome'],
    registers: [this.registry],
  });
  private readonly modelTokens = new Counter({
    name: 'birdie_model_tokens_total',
    help: 'Tokens the models used, by model and direction (input or output).',
    labelNames: ['model', 'direction'],
    registers: [this.registry],
  });
  private readonly storeErrors = new Counter({
    name: 'birdie_store_errors_total',
    help: 'Store failures met while serving requests and turns, by store error code.',
    labelNames: ['code'],
    registers: [this.registry],
  });

  /** `activeTurns`: read at each scrape. */
  constructor(activeTurns: () => number) {
    new Gauge({
      name: 'birdie_active_sessions',
      help: 'Sessions with a turn running on this worker now.',
      registers: [this.registry],
      collect() {
        this.set(activeTurns());
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  started(_turn: TurnContext): void {
    this.turnsStarted.inc();
  }

  event(_turn: TurnContext, event: TurnEvent): void {
    if (event.type === 'tool-end')
      this.toolCalls.inc({ tool: event.name, outcome: event.ok ? 'ok' : 'error' });
    else if (event.type === 'usage') {
      this.modelTokens.inc({ model: event.model, direction: 'input' }, event.inputTokens);
      this.modelTokens.inc({ model: event.model, direction: 'output' }, event.outputTokens);
    }
  }

  finished(_turn: TurnContext, { status, seconds, error }: TurnEnd): void {
    this.turnsFinished.inc({ status });
    this.turnSeconds.observe({ status }, seconds);
    if (error !== undefined) this.storeError(error);
  }

  /** Counts `error` (or its cause) when it is a store failure that is the store's, not the request's. */
  storeError(error: unknown): void {
    const store = isStoreError(error)
      ? error
      : error instanceof Error && isStoreError(error.cause)
        ? error.cause
        : undefined;
    if (store && !REQUEST_CODES.has(store.code)) this.storeErrors.inc({ code: store.code });
  }

  /** The text a scrape gets, and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
