import { randomUUID } from 'node:crypto';
import type { McpEndpoint } from '@birdie/server';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { McpHost } from './mcp-host.js';
import { createMcpServer, type McpServerOptions } from './mcp-server.js';

export interface McpHttpOptions {
  info: McpServerOptions['info'];
  /** Requests per token per minute (default 600; 0: no limit). */
  perMinute?: number;
  /** A failure that is not the client's, for the application's log. */
  onError(error: unknown): void;
}

/** An MCP session over HTTP: its transport, and the token holder who opened it. */
interface Connection {
  transport: WebStandardStreamableHTTPServerTransport;
  userId: string;
}

const json = (status: number, code: number, message: string) =>
  new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });

/**
 * `birdie mcp --http`: the MCP streamable HTTP transport at `/mcp` behind the bearer tokens of `birdie serve`. Each
 * MCP session (`Mcp-Session-Id`) is one token holder's, its calls logged in a birdie session of that user and run in
 * the user's workspace; another token cannot use it (404, as an unknown session). The host must have been opened with
 * `http: true` (the operator's policy, the sandbox forced). Listen with the endpoint's `listen`; `close` ends every
 * MCP session.
 */
export async function createMcpHttp(host: McpHost, options: McpHttpOptions): Promise<McpEndpoint> {
  if (!host.serve) throw new TypeError('createMcpHttp needs a host opened with { http: true }');
  const [{ WebStandardStreamableHTTPServerTransport }, { createMcpEndpoint }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@birdie/server'),
  ]);
  const connections = new Map<string, Connection>();
  const endpoint = createMcpEndpoint({
    store: host.store,
    rateLimit: options.perMinute === 0 ? false : { requests: options.perMinute ?? 600, perMs: 60_000 },
    onError: options.onError,
    async handle(request, token) {
      const id = request.headers.get('mcp-session-id');
      if (id) {
        const known = connections.get(id);
        // Another user's session is not theirs to know about: the same answer as an unknown one.
        if (!known || known.userId !== token.userId) return json(404, -32001, 'Session not found');
        return known.transport.handleRequest(request);
      }
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          connections.set(sessionId, { transport, userId: token.userId });
        },
        onsessionclosed: (sessionId) => {
          connections.delete(sessionId);
        },
      });
      const { server } = await createMcpServer(host, { userId: token.userId, info: options.info });
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      // Not an initialize request: nothing to keep.
      if (transport.sessionId === undefined) await server.close();
      return response;
    },
  });
  return {
    ...endpoint,
    async close() {
      await Promise.allSettled([...connections.values()].map((c) => c.transport.close()));
      connections.clear();
      await endpoint.close();
    },
  };
}
