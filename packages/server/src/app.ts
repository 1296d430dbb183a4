import type { ApiToken } from '@birdie/store';
import { OpenAPIHono } from '@hono/zod-openapi';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { requestId } from 'hono/request-id';
import { authenticate } from './auth.js';
import { requestBodyLimit } from './body-limit.js';
import { ApiError, type ApiErrorCode, errorBody } from './errors.js';
import { jsonBodies } from './json-body.js';
import type { Log } from './log.js';
import type { ServerMetrics } from './metrics.js';
import { openApiDocument } from './openapi.js';
import { RateLimiter } from './rate-limit.js';
import type { ApiEnv, RouteDeps } from './routes/define.js';
import { ROUTES } from './routes/index.js';
import type { ServeRuntime } from './runtime.js';
import { apiErrorOf, isEngineRefusal } from './store-errors.js';
import type { Turns } from './turns.js';
import { refuseInvalid } from './validation.js';
import { webApp } from './web-app.js';
import { isWorkspaceUnusableError, type Workspaces } from './workspaces.js';

export interface AppOptions {
  runtime: ServeRuntime;
  turns: Turns;
  /** Deleting a session deletes its own workspace (`per: 'session'`). */
  workspaces?: Workspaces;
  version: string;
  maxBodyBytes: number;
  rateLimit: { requests: number; perMs: number } | false;
  corsOrigins: string[];
  metrics: ServerMetrics;
  isAdminToken(token: ApiToken): boolean;
  /** Unexpected failures (never sent to the client): the application logs them. */
  onError(error: unknown, where: string, context: { requestId?: string }): void;
  /** One entry per request, when it is answered. */
  log: Log;
  /** The built web app's folder, served at `/` (see web-app.ts); undefined: none (`/` is the API's 404). */
  webRoot?: string;
}

/** The API as a Hono app: `fetch(request)` for any adapter or test. Its operations are `routes/index.ts`'s. */
export function createApp(o: AppOptions): OpenAPIHono<ApiEnv> {
  const { runtime, turns } = o;
  const { store } = runtime;
  const app = new OpenAPIHono<ApiEnv>({ defaultHook: refuseInvalid as never });
  const limiter = o.rateLimit ? new RateLimiter(o.rateLimit.requests, o.rateLimit.perMs) : undefined;
  const documents = new Map<string, Record<string, unknown>>();
  const deps: RouteDeps = {
    runtime,
    store,
    turns,
    ...(o.workspaces ? { workspaces: o.workspaces } : {}),
    version: o.version,
    metrics: o.metrics,
    isAdminToken: o.isAdminToken,
    document: (serverUrl) => {
      let document = documents.get(serverUrl);
      if (!document) {
        document = openApiDocument(o.version, serverUrl);
        if (documents.size < 16) documents.set(serverUrl, document);
      }
      return document;
    },
  };

  // Every answer carries its request's id (the client's `X-Request-Id` when it is a plain token, else a new UUID),
  // and every request is logged once answered (a stream: when it starts).
  app.use('*', requestId({ limitLength: 128 }), async (c, next) => {
    const started = performance.now();
    await next();
    const id = c.get('requestId');
    // A response the route made itself (an event stream) lacks it: set on its headers where they can change, since
    // `c.header` on a finished response copies it whole (on @hono/node-server, into a full WHATWG Response).
    if (c.res.headers.get('x-request-id') !== id) {
      try {
        c.res.headers.set('X-Request-Id', id);
      } catch {
        c.header('X-Request-Id', id); // immutable headers (a fetched response): a copy it is
      }
    }
    const status = c.res.status;
    o.log({
      level: status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info',
      msg: 'request',
      requestId: id,
      method: c.req.method,
      path: c.req.path,
      status,
      durationMs: Math.round(performance.now() - started),
      ...(c.get('token') ? { userId: c.get('token').userId } : {}),
    });
  });
  if (o.corsOrigins.length > 0) {
    app.use(
      '/v1/*',
      cors({
        origin: o.corsOrigins,
        allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID'],
        allowMethods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'OPTIONS'],
        // A page reads these as a script does: the id to quote for a 500, when to try a 429 or 503 again.
        exposeHeaders: ['X-Request-Id', 'Retry-After', 'WWW-Authenticate'],
        maxAge: 600,
      }),
    );
  }
  app.use(
    '/v1/*',
    requestBodyLimit({
      maxSize: o.maxBodyBytes,
      onError: (c) => {
        // The rest of the body is never read: the connection cannot carry another request.
        c.header('Connection', 'close');
        return c.json(
          errorBody('payload-too-large', `the request body is larger than ${o.maxBodyBytes} bytes`),
          413,
        );
      },
    }),
  );

  for (const route of ROUTES) if (route.public) route.mount(app, deps);

  // Everything else needs a token, and each token has its own rate.
  app.use('/v1/*', authenticate(store, limiter));
  app.use('/metrics', authenticate(store, limiter));
  app.use('/v1/*', jsonBodies());

  for (const route of ROUTES) if (!route.public) route.mount(app, deps);
  // The web app: GET of any path outside /v1 (mounted for every method, so it is no operation of the document).
  if (o.webRoot !== undefined) app.use('*', webApp(o.webRoot));

  app.notFound((c) => c.json(errorBody('not-found', `no such endpoint: ${c.req.method} ${c.req.path}`), 404));
  app.onError((error, c) => {
    o.metrics.storeError(error);
    const known = error instanceof ApiError ? error : (apiErrorOf(error) ?? httpError(error));
    // The database refused a value the checks let through: the client is told less than the operator needs.
    const underlying = error instanceof ApiError ? error.cause : error;
    if (isEngineRefusal(underlying))
      o.onError(underlying, `${c.req.method} ${c.req.path}`, { requestId: c.get('requestId') });
    // The server's side of it for the operator (the client was told less): which user's workspace, and why.
    if (isWorkspaceUnusableError(underlying))
      o.onError(underlying, `${c.req.method} ${c.req.path}`, { requestId: c.get('requestId') });
    if (known) {
      if (known.retryAfter !== undefined) c.header('Retry-After', String(known.retryAfter));
      return c.json(errorBody(known.code, known.message), known.status as never);
    }
    // A bug or an unexpected failure: logged by the application, never shown (no stack, no internals).
    o.onError(error, `${c.req.method} ${c.req.path}`, { requestId: c.get('requestId') });
    return c.json(errorBody('internal', 'internal error'), 500);
  });
  return app;
}

/** Hono's own refusals (a route's media-type gate: 415) in the API's words. */
function httpError(error: unknown): ApiError | undefined {
  if (!(error instanceof HTTPException)) return undefined;
  const code: ApiErrorCode | undefined =
    error.status === 415 ? 'unsupported-media-type' : error.status === 400 ? 'invalid-request' : undefined;
  return code ? new ApiError(code, error.message, { cause: error }) : undefined;
}
