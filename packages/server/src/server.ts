import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ApiToken } from '@birdie/store';
import { createAdaptorServer } from '@hono/node-server';
import { createApp } from './app.js';
import { tokenIsAdmin } from './auth.js';
import type { TurnLimits } from './limits.js';
import { type Address, listenOn, stopListening } from './listen.js';
import type { LogEntry } from './log.js';
import { ServerMetrics } from './metrics.js';
import { metricsServer } from './metrics-listener.js';
import type { ServeRuntime } from './runtime.js';
import { turnLog } from './turn-log.js';
import { Turns } from './turns.js';
import { defaultWebRoot } from './web-app.js';
import { type WorkspaceOptions, Workspaces } from './workspaces.js';

export interface ServerOptions {
  runtime: ServeRuntime;
  /** Reported by `/v1/health` and the OpenAPI document. Default `0.0.0`. */
  version?: string;
  /** Largest request body, bytes (413 above). Default 1 MiB. */
  maxBodyBytes?: number;
  /** Requests per token (429 above, with `Retry-After`). Default 600 per minute; `false` turns it off. */
  rateLimit?: { requests: number; perMs: number } | false;
  /**
   * Per-user limits on turns, counted in the store across every worker (429 `concurrent-turns-limit` /
   * `turns-per-minute-limit`). Default none.
   */
  limits?: TurnLimits;
  /** Origins allowed to call the API from a browser. Default none: no CORS headers at all. */
  corsOrigins?: string[];
  /** How often a running turn checks whether another worker asked it to stop, ms. Default 500. */
  cancelPollMs?: number;
  /** A comment line on quiet event streams, ms. Default 15000. */
  keepAliveMs?: number;
  /** How often a reattached stream (`GET …/events`, a resent key) asks the store for new events, ms. Default 500. */
  eventPollMs?: number;
  /** How long a turn's key and events are kept after it ended, ms. Default 24 h: what `Idempotency-Key` promises. */
  turnRetentionMs?: number;
  /** How long streamed tokens wait to be recorded as one event, ms. Default 250. */
  tokenFlushMs?: number;
  /**
   * A turn with no new event for this long, whose session nobody holds, is ended as lost, ms. Default 60000. A worker
   * marks its running turns alive every third of it: give every worker of one store the same value.
   */
  lostTurnMs?: number;
  /**
   * A workspace per user (or session) under one root every worker mounts: each turn's tools run there
   * (`TurnHandlers.workspace`), with an optional byte quota per user. Default: none (the runtime's own folder).
   */
  workspaces?: WorkspaceOptions;
  /**
   * Unexpected failures: the response says only `internal error`; this gets the error, where it happened and the
   * request's id (the one the client got as `X-Request-Id`). Default: ignored.
   */
  onError?(error: unknown, where: string, context?: { requestId?: string }): void;
  /**
   * The server's log: one entry per request (`request`: method, path, status, duration, user, request id) and per
   * turn (`turn started`, `turn finished`: session, user, status, duration, tokens, the request's id). The server
   * never prints; the application writes them (the CLI: `--log-format json|text`). Default: none.
   */
  onLog?(entry: LogEntry): void;
  /**
   * Whether a token is an operator's: only such a token reads `GET /metrics` on the API's listener. Default: the
   * stored role (`birdie tokens create --admin`: `token.admin`), the one the admin routes check.
   */
  isAdminToken?(token: ApiToken): boolean;
  /**
   * The folder of the built web app, served at `/` (the API stays under `/v1`) with its Content-Security-Policy.
   * Default: the app built into this package (`dist/web`); `false`: no web app. Without an `index.html` there, `/`
   * answers a 404 saying the app was not built.
   */
  webRoot?: string | false;
}

export interface BirdieServer {
  /** The API as a fetch handler (web-standard `Request` → `Response`), for tests or another adapter. */
  fetch(request: Request): Promise<Response>;
  /** Listens on `host:port` (port 0: any free port) and resolves with the address. */
  listen(options: { host: string; port: number }): Promise<Address>;
  /**
   * Serves `GET /metrics` (Prometheus text format) on a listener of its own, with no token: give it an address only
   * the operator's scraper reaches (loopback). Closed with the server.
   */
  listenMetrics(options: { host: string; port: number }): Promise<Address>;
  /** Turns running on this worker now. */
  readonly runningTurns: number;
  /**
   * Graceful stop: no new turns (503 `unavailable`), running turns get `graceMs` to finish and are cancelled after
   * it (their runs are logged `interrupted`, their leases released). Until then the server still listens, so
   * `/v1/ready` answers 503 `shutting-down`; then it stops listening and every connection is closed. A cancelled turn
   * gets `cancelWaitMs` (default 5 s: a tool's kill grace and more) to record how it ended; one that does not (a tool
   * that ignores the abort) is counted cancelled and left, so a stop always ends.
   */
  close(options?: {
    graceMs?: number;
    cancelWaitMs?: number;
  }): Promise<{ finished: number; cancelled: number }>;
}

/** The HTTP API over one runtime. Loads nothing until called; listens only when asked. */
export function createServer(options: ServerOptions): BirdieServer {
  const workspaces = options.workspaces ? new Workspaces(options.workspaces) : undefined;
  const onError = options.onError ?? (() => {});
  const log = options.onLog ?? (() => {});
  const metrics: ServerMetrics = new ServerMetrics((): number => turns.size);
  const turns: Turns = new Turns(options.runtime, {
    cancelPollMs: options.cancelPollMs ?? 500,
    keepAliveMs: options.keepAliveMs ?? 15_000,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(workspaces ? { workspaces } : {}),
    ...definedOf({
      eventPollMs: options.eventPollMs,
      tokenFlushMs: options.tokenFlushMs,
      retentionMs: options.turnRetentionMs,
      lostTurnMs: options.lostTurnMs,
    }),
    observers: options.onLog ? [metrics, turnLog(log)] : [metrics],
    onError: (error, where = 'turn log', context) => onError(error, where, context),
  });
  const app = createApp({
    runtime: options.runtime,
    turns,
    ...(workspaces ? { workspaces } : {}),
    version: options.version ?? '0.0.0',
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    rateLimit: options.rateLimit === undefined ? { requests: 600, perMs: 60_000 } : options.rateLimit,
    corsOrigins: options.corsOrigins ?? [],
    metrics,
    isAdminToken: options.isAdminToken ?? tokenIsAdmin,
    onError,
    log,
    ...(options.webRoot === false ? {} : { webRoot: options.webRoot ?? defaultWebRoot() }),
  });
  let http: Server | undefined;
  let metricsHttp: Server | undefined;
  let closing: Promise<{ finished: number; cancelled: number }> | undefined;
  return {
    fetch: async (request) => app.fetch(request),
    get runningTurns() {
      return turns.size;
    },
    async listen({ host, port }) {
      if (http) throw new Error('the server is already listening');
      const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
      http = server;
      return listenOn(server, host, port);
    },
    async listenMetrics({ host, port }) {
      if (metricsHttp) throw new Error('the metrics listener is already listening');
      metricsHttp = metricsServer(metrics, onError);
      return listenOn(metricsHttp, host, port);
    },
    close({ graceMs = 10_000, cancelWaitMs = 5_000 } = {}) {
      closing ??= (async () => {
        const server = http;
        // Still listening while the turns drain: a balancer's readiness probe gets 503 `shutting-down` and a new
        // turn a 503 `unavailable`, not a refused connection. Each answer closes its connection (idle ones now), so
        // clients reconnect, to another worker once the probe has taken this one out.
        server?.prependListener('request', closeAfterAnswer);
        server?.closeIdleConnections();
        const outcome = await turns.drain(graceMs, cancelWaitMs);
        const stopped = server ? stopListening(server) : Promise.resolve();
        server?.closeAllConnections();
        await stopped;
        // The metrics last until the turns have ended, so a final scrape sees how they did.
        if (metricsHttp) {
          const closed = stopListening(metricsHttp);
          metricsHttp.closeAllConnections();
          await closed;
        }
        return outcome;
      })();
      return closing;
    },
  };
}

/** A draining server's answers end their keep-alive connections. */
function closeAfterAnswer(_request: IncomingMessage, response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close');
}

/** The entries whose value is given (an option left out keeps its default, even under exactOptionalPropertyTypes). */
function definedOf<T extends Record<string, number | undefined>>(values: T): { [K in keyof T]?: number } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as never;
}
