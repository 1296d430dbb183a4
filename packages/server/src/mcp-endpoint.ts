import type { Server } from 'node:http';
import type { ApiToken, Store } from '@birdie/store';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { authenticate } from './auth.js';
import { ApiError, errorBody } from './errors.js';
import { type Address, listenOn, stopListening } from './listen.js';
import { RateLimiter } from './rate-limit.js';
import type { ApiEnv } from './routes/define.js';
import { apiErrorOf } from './store-errors.js';

export interface McpEndpointOptions {
  /** Where the API tokens are (`birdie tokens create`): the same ones `birdie serve` takes. */
  store: Store;
  /** Answers one request to `/mcp` whose bearer token was verified (the MCP streamable HTTP transport's). */
  handle(request: Request, token: ApiToken): Promise<Response>;
  /** Requests per token, as `createServer`'s `rateLimit` (default 600 a minute; `false`: none). */
  rateLimit?: { requests: number; perMs: number } | false;
  /** A failure that is not the client's (logged by the application; the client gets a 500 without details). */
  onError(error: unknown): void;
}

export interface McpEndpoint {
  fetch(request: Request): Promise<Response>;
  listen(options: { host: string; port: number }): Promise<Address>;
  close(): Promise<void>;
}

/**
 * The HTTP side of `birdie mcp --http`: one endpoint, `/mcp`, behind the bearer tokens of `birdie serve` (the same
 * check, the same 401 and rate limit per token); what the MCP transport answers is the application's.
 */
export function createMcpEndpoint(o: McpEndpointOptions): McpEndpoint {
  const rate = o.rateLimit === undefined ? { requests: 600, perMs: 60_000 } : o.rateLimit;
  const limiter = rate ? new RateLimiter(rate.requests, rate.perMs) : undefined;
  const app = new Hono<ApiEnv>();
  app.use('/mcp', authenticate(o.store, limiter));
  app.all('/mcp', (c) => o.handle(c.req.raw, c.get('token')));
  app.notFound((c) => c.json(errorBody('not-found', `no such endpoint: ${c.req.method} ${c.req.path}`), 404));
  app.onError((error, c) => {
    const known = error instanceof ApiError ? error : apiErrorOf(error);
    if (known) {
      if (known.retryAfter !== undefined) c.header('Retry-After', String(known.retryAfter));
      return c.json(errorBody(known.code, known.message), known.status as never);
    }
    o.onError(error);
    return c.json(errorBody('internal', 'internal error'), 500);
  });
  let http: Server | undefined;
  return {
    fetch: async (request) => app.fetch(request),
    async listen({ host, port }) {
      if (http) throw new Error('the endpoint is already listening');
      http = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
      return listenOn(http, host, port);
    },
    async close() {
      if (!http) return;
      const stopped = stopListening(http);
      http.closeAllConnections();
      await stopped;
    },
  };
}
