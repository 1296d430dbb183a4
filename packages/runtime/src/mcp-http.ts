import { randomUUID } from 'node:crypto';
import type { McpEndpoint } from '@birdie/server';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { settledWithin } from './mcp-connection-work.js';
import type { McpHost } from './mcp-host.js';
import { createMcpServer, type McpServerOptions } from './mcp-server.js';

export interface McpHttpOptions {
  info: McpServerOptions['info'];
  /** Requests per token per minute (default 600; 0: no limit). */
  perMinute?: number;
  /** A failure that is not the client's, for the application's log. */
  onError(error: unknown): void;
  /** The clock idle sessions are measured with (tests drive it). */
  now?: () => number;
}

/** An MCP session over HTTP: its transport, the user whose token opened it, and when it was last used. */
interface Connection {
  transport: WebStandardStreamableHTTPServerTransport;
  userId: string;
  lastSeen: number;
  busy(): boolean;
  /** Resolves once the session has ended and its last request settled (see `BirdieMcpServer.settled`). */
  settled(): Promise<void>;
}

const json = (status: number, code: number, message: string) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

/**
 * `birdie mcp --http`: the MCP streamable HTTP transport at `/mcp` behind the bearer tokens of `birdie serve`. Each
 * MCP session (`Mcp-Session-Id`) is one user's (the user of the token that opened it), its calls logged in a birdie
 * session of that user and run in the user's workspace; any token of that user may use it, another user's cannot
 * (404, as an unknown session). The host must have been opened with
 * `http: true` (the operator's policy, the sandbox forced). Listen with the endpoint's `listen`; `close` ends every
 * MCP session, aborting the calls in flight, and waits (at most 10 s) for their runs to be recorded `cancelled`.
 *
 * What one client can hold is bounded (`host.serve.sessions`, from `serve.limits.mcp_sessions*`): a new session over
 * the total or the user's cap is refused (429 `mcp-sessions-limit`), and a session without a request for
 * `mcp_idle_seconds` (and no call running) is closed, so its id is unknown (404) from then on. Tool calls are
 * admitted against `serve.limits.concurrent_turns` / `turns_per_minute` as turns are (`admitTurn`: a call holds one of
 * the user's turn slots until it ends; see `createMcpServer`).
 */
export async function createMcpHttp(host: McpHost, options: McpHttpOptions): Promise<McpEndpoint> {
  if (!host.serve) throw new TypeError('createMcpHttp needs a host opened with { http: true }');
  const [{ WebStandardStreamableHTTPServerTransport }, { createMcpEndpoint }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@birdie/server'),
  ]);
  const { ApiError } = await import('@birdie/server');
  const now = options.now ?? Date.now;
  const limits = host.serve.sessions;
  const connections = new Map<string, Connection>();
  /** Closes the sessions idle for longer than the limit (checked on every request, and by a timer). */
  const sweep = () => {
    const oldest = now() - limits.idleMs;
    for (const [id, c] of connections)
      if (c.lastSeen <= oldest && !c.busy()) {
        connections.delete(id);
        void c.transport.close().catch(options.onError);
      }
  };
  const timer = setInterval(sweep, Math.min(limits.idleMs, 60_000));
  timer.unref();
  /** Sessions being opened, per user: counted with the open ones, so requests racing each other cannot pass a cap. */
  const opening = new Map<string, number>();
  let openingTotal = 0;
  /** Refuses a new session over the total or the user's cap (after idle ones were closed); else holds its place. */
  const admit = (userId: string): (() => void) => {
    sweep();
    if (connections.size + openingTotal >= limits.total)
      throw new ApiError(
        'mcp-sessions-limit',
        `the server has ${limits.total} MCP session(s) open, the most allowed (serve.limits.mcp_sessions); try again later`,
        { retryAfter: 60 },
      );
    let own = opening.get(userId) ?? 0;
    for (const c of connections.values()) if (c.userId === userId) own += 1;
    if (own >= limits.perUser)
      throw new ApiError(
        'mcp-sessions-limit',
        `${userId} has ${limits.perUser} MCP session(s) open, the most allowed (serve.limits.mcp_sessions_per_user); close one (DELETE /mcp) or let it expire`,
        { retryAfter: 60 },
      );
    opening.set(userId, (opening.get(userId) ?? 0) + 1);
    openingTotal += 1;
    return () => {
      openingTotal -= 1;
      const left = (opening.get(userId) ?? 1) - 1;
      if (left > 0) opening.set(userId, left);
      else opening.delete(userId);
    };
  };
  const endpoint = createMcpEndpoint({
    store: host.store,
    rateLimit: options.perMinute === 0 ? false : { requests: options.perMinute ?? 600, perMs: 60_000 },
    onError: options.onError,
    async handle(request, token) {
      const id = request.headers.get('mcp-session-id');
      if (id) {
        sweep();
        const known = connections.get(id);
        // Another user's session is not theirs to know about: the same answer as an unknown one.
        if (!known || known.userId !== token.userId) return json(404, -32001, 'Session not found');
        known.lastSeen = now();
        return known.transport.handleRequest(request);
      }
      const opened = admit(token.userId);
      try {
        return await start(request, token.userId);
      } finally {
        opened();
      }
    },
  });
  /** A request without a session id: an initialize request opens a session, anything else is answered and ends. */
  const start = async (request: Request, userId: string): Promise<Response> => {
    const { server, busy, settled } = await createMcpServer(host, { userId, info: options.info });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        connections.set(sessionId, { transport, userId, lastSeen: now(), busy, settled });
      },
    });
    // However the session ends (DELETE, the idle timeout, `close`), it leaves the table; the server, told by the same
    // close, lets go of what it holds in the host (see `createMcpServer`).
    transport.onclose = () => {
      if (transport.sessionId !== undefined) connections.delete(transport.sessionId);
    };
    let kept = false;
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      // Not an initialize request: nothing to keep.
      kept = transport.sessionId !== undefined;
      return response;
    } finally {
      if (!kept) await server.close();
    }
  };
  return {
    ...endpoint,
    async close() {
      clearInterval(timer);
      const open = [...connections.values()];
      connections.clear();
      await Promise.allSettled(open.map((c) => c.transport.close()));
      // The calls the close aborted end their runs as `cancelled` before the caller closes the host's store (as
      // `serveMcpStdio` waits for its connection).
      await settledWithin(open.map((c) => c.settled()));
      await endpoint.close();
    },
  };
}
