import { type ServerProcess, wrapServerCommand } from '@birdie/entrypoints';
import type { McpServerConfig } from '@birdie/skill-parser';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CLIENT_CAPABILITIES, type McpClientHooks } from './mcp-connection.js';

/** The parts of `@modelcontextprotocol/sdk` the client uses, loaded only when a skill needs MCP. */
export interface McpSdk {
  client: typeof import('@modelcontextprotocol/sdk/client/index.js');
  stdio: typeof import('@modelcontextprotocol/sdk/client/stdio.js');
  http: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  sse: typeof import('@modelcontextprotocol/sdk/client/sse.js');
  types: typeof import('@modelcontextprotocol/sdk/types.js');
}

export async function loadMcpSdk(): Promise<McpSdk> {
  const [client, stdio, http, sse, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/client/sse.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  return { client, stdio, http, sse, types };
}

export interface OpenedClient {
  client: Client;
  /** A stdio server's process (own group, environment allowlist, process guard): @birdie/entrypoints owns it. */
  server?: ServerProcess;
}

/**
 * Opens the SDK's `Client` to one server, with birdie's capabilities and its handlers for what the server may ask
 * (sampling, elicitation, roots) and say (logging, list changes). `onServer` receives a stdio server's process as soon
 * as it exists, so a failed handshake can still read its stderr and stop it.
 */
export async function openMcpClient(
  sdk: McpSdk,
  name: string,
  config: McpServerConfig,
  hooks: McpClientHooks,
  onServer: (server: ServerProcess) => void,
  onClient: (client: Client) => void,
): Promise<OpenedClient> {
  const { types } = sdk;
  const client = new sdk.client.Client(
    { name: 'birdie', version: '1' },
    { capabilities: { ...CLIENT_CAPABILITIES } },
  );
  onClient(client);
  client.setRequestHandler(types.ListRootsRequestSchema, async () => ({ roots: hooks.roots() }));
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request, extra) => {
    const sample = hooks.requests().sample;
    if (!sample)
      throw new types.McpError(
        types.ErrorCode.InvalidRequest,
        'This birdie session does not sample for servers.',
      );
    return sample(request.params, { server: name, signal: extra.signal });
  });
  client.setRequestHandler(types.ElicitRequestSchema, async (request, extra) => {
    const elicit = hooks.requests().elicit;
    if (!elicit || request.params.mode === 'url') return { action: 'decline' };
    return elicit(request.params, { server: name, signal: extra.signal });
  });
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => {
    const { level, logger, data } = n.params;
    hooks.notice({ kind: 'log', server: name, level, data, ...(logger ? { logger } : {}) });
  });
  client.setNotificationHandler(types.ToolListChangedNotificationSchema, () => {
    hooks.notice({ kind: 'tools-changed', server: name });
  });
  client.setNotificationHandler(types.ResourceListChangedNotificationSchema, () => {
    hooks.notice({ kind: 'resources-changed', server: name });
  });
  client.setNotificationHandler(types.PromptListChangedNotificationSchema, () => {
    hooks.notice({ kind: 'prompts-changed', server: name });
  });
  client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (n) => {
    hooks.notice({ kind: 'resource-updated', server: name, uri: n.params.uri });
  });

  if (config.transport !== 'stdio') {
    const url = new URL(config.url);
    const requestInit = config.headers ? { headers: config.headers } : undefined;
    const transport =
      config.transport === 'sse'
        ? new sdk.sse.SSEClientTransport(url, requestInit ? { requestInit } : {})
        : new sdk.http.StreamableHTTPClientTransport(url, requestInit ? { requestInit } : {});
    await client.connect(transport);
    return { client };
  }
  // `node` in a skill means "a Node.js", and the one running us is the one we know exists.
  const command = config.command === 'node' ? process.execPath : config.command;
  const server = await wrapServerCommand({
    command,
    args: config.args,
    ...(config.env ? { env: config.env } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    // The SDK drops the server's stderr; kept in a file, its last lines explain a server that dies at start.
    captureStderr: true,
  });
  onServer(server);
  const transport = new sdk.stdio.StdioClientTransport({
    command: server.command,
    args: server.args,
    env: server.env,
    stderr: 'ignore',
    ...(config.cwd ? { cwd: config.cwd } : {}),
  });
  await client.connect(transport);
  return { client, server };
}
