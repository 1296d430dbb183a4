import type { SessionApproval } from '@birdie/graph/tools';
import { escapeInvisible } from '@birdie/graph/visible-text';
import type { TurnAdmission } from '@birdie/server';
import type { Session } from '@birdie/store';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { warn } from './io.js';
import {
  getPrompt,
  isMcpResourceError,
  listPrompts,
  listResources,
  listTools,
  readResource,
} from './mcp-catalog.js';
import { connectionWork, settledWithin } from './mcp-connection-work.js';
import type { McpHost } from './mcp-host.js';
import { paramsCheck } from './mcp-params-check.js';
import {
  APPROVAL_QUESTION_MAX,
  callMcpTool,
  isMcpUnknownToolError,
  type McpApprovalAnswer,
  type McpApprovalQuestion,
} from './mcp-tool-call.js';
import { oneLine } from './session-titles.js';

export interface McpServerOptions {
  /** Whose sessions the connection's calls are logged in (a token's user under `--http`). */
  userId: string;
  /** `serverInfo` of the initialize answer. */
  info: { name: string; version: string };
}

/** One MCP connection's server, and how to end what it holds. */
export interface BirdieMcpServer {
  server: Server;
  /** The session its calls are logged in, once one was needed. */
  session(): Promise<Session>;
  /** Whether a request is running (a session is not idle while one is, however long a call waits for approval). */
  busy(): boolean;
  /**
   * Resolves once the connection has ended and its last request settled: a call the close aborted has then written
   * its run's end (`cancelled`) to the store.
   */
  settled(): Promise<void>;
}

/**
 * The JSON-RPC error code of a call refused by a per-user limit (`serve.limits`); its `data.code` is the code
 * `birdie serve` answers the same refusal of a turn with (`concurrent-turns-limit`, `turns-per-minute-limit`).
 */
export const MCP_LIMIT_ERROR = -32029;

/**
 * The approval question's form: one choice, as the REPL offers it — approve once, for this session what the question
 * offers (the tool, or a shell command's pattern: never every command of a shell tool in one click), or reject.
 */
function approvalForm(offers: McpApprovalQuestion['offers']) {
  return {
    type: 'object' as const,
    properties: {
      decision: {
        type: 'string' as const,
        title: 'Decision',
        oneOf: [
          { const: 'once', title: 'Approve once' },
          ...(offers.session ? [{ const: 'session', title: 'Approve for this session' }] : []),
          ...(offers.pattern !== undefined
            ? [{ const: 'pattern', title: `Approve ${offers.pattern} for this session` }]
            : []),
          { const: 'reject', title: 'Reject' },
        ],
        default: 'once',
      },
    },
  };
}

/**
 * What the client's answer decides: `accept` with `once` (or no choice, from a client that shows no fields) runs the
 * call, with `session` runs it and approves the tool for the session, with `pattern` runs it and allows the offered
 * command pattern for the session (either only if offered: `callMcpTool` checks); `reject`, anything unknown, decline
 * and cancel refuse it.
 */
function approvalAnswer(result: { action: string; content?: Record<string, unknown> }): McpApprovalAnswer {
  if (result.action !== 'accept') return result.action === 'cancel' ? 'cancel' : 'decline';
  const decision = result.content?.decision;
  if (decision === undefined || decision === 'once') return 'accept';
  return decision === 'session' || decision === 'pattern' ? decision : 'decline';
}

/**
 * An MCP server (the SDK's `Server`) over a host: the skill tools the connection's session may use, with their JSON
 * schemas, each call run by `callMcpTool` (policy, rules, approval asked through elicitation, run log); the session's
 * knowledge skills as `skill://` resources; the agents as prompts. The session is made on the first request that
 * needs it (`mcp CLIENT` is its title), so that its grants decide every listing. Connect it to any transport.
 */
export async function createMcpServer(host: McpHost, options: McpServerOptions): Promise<BirdieMcpServer> {
  const [{ Server }, types] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = new Server(options.info, {
    capabilities: {
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
    },
    instructions:
      "birdie's skills: tools (calls that need approval are asked about through elicitation), knowledge skills as skill:// resources, agents as prompts.",
  });
  let opened: Promise<{ session: Session }> | undefined;
  /** The session, once made: the host's grants of it are let go when the connection ends. */
  let made: Session | undefined;
  /** The client's own name (`clientInfo.name`, a remote client's choice under `--http`) as one line of text. */
  const clientName = () => oneLine(server.getClientVersion()?.name ?? 'client', 100);
  const open = () => {
    opened ??= (async () => {
      made = await host.newSession(options.userId, `mcp ${clientName()}`);
      return { session: made };
    })();
    // A failure is not kept: the next request tries again.
    opened.catch(() => {
      opened = undefined;
    });
    return opened;
  };
  const sessionKey = async () => {
    const { session } = await open();
    await host.loadGrants(session);
    return session.id;
  };

  /**
   * The folder the session's tools work in, and so its MCP servers' root: the user's workspace under `--http` (made if
   * needed; a call checks its quota), else the host's working folder.
   */
  const workFolder = async (session: Session) =>
    host.serve ? host.serve.workspaces.open(session) : host.cwd;

  // What the client was last given of each list: a change to it is announced (`notifications/*/list_changed`).
  const lists = {
    tools: {
      read: async () => {
        const key = await sessionKey();
        return listTools(host, key, await workFolder((await open()).session));
      },
      announce: () => server.sendToolListChanged(),
      given: undefined as string | undefined,
    },
    resources: {
      read: async () => listResources(host, await sessionKey()),
      announce: () => server.sendResourceListChanged(),
      given: undefined as string | undefined,
    },
    prompts: {
      read: async () => {
        await sessionKey();
        return listPrompts(host);
      },
      announce: () => server.sendPromptListChanged(),
      given: undefined as string | undefined,
    },
  };
  const give = async <T>(list: { read(): Promise<T>; given?: string | undefined }): Promise<T> => {
    const value = await list.read();
    list.given = JSON.stringify(value);
    return value;
  };
  // Everything else the connection holds lives in this closure (the approvals, the lists given, the session).
  let markSettled: () => void = () => {};
  const settled = new Promise<void>((resolve) => {
    markSettled = resolve;
  });
  const work = connectionWork(() => {
    stopHearing();
    if (made) host.forgetGrants(made.id);
    markSettled();
  });

  /** After a change, the lists the client was given are read again; those that differ are announced. */
  let checking = Promise.resolve();
  const recheck = () => {
    checking = checking.then(() =>
      work.track(async () => {
        for (const list of Object.values(lists)) {
          if (work.ended) return; // nobody to tell
          if (list.given === undefined) continue; // never asked for: nothing the client holds is stale
          const now = JSON.stringify(await list.read());
          if (now === list.given) continue;
          list.given = now;
          await list.announce();
        }
      }),
    );
    checking = checking.catch((error: unknown) =>
      warn(host.io, `birdie: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  const stopHearing = host.onChange(recheck);
  const closing = server.onclose;
  server.onclose = () => {
    work.end();
    closing?.();
  };
  /**
   * Registers a request handler whose work counts until it ends (see `connectionWork`). The request is checked here,
   * not by the SDK: it parses with the schema before any handler runs and answers a mismatch with -32603 and zod's
   * issue list; params of the wrong shape are the client's mistake, -32602 with one sentence (`paramsCheck`).
   */
  const handle: typeof server.setRequestHandler = (schema, handler) => {
    const { method, lenient, check } = paramsCheck(schema as never, types.ErrorCode.InvalidParams);
    const run = (request: unknown, extra: Parameters<typeof handler>[1]) =>
      work.track(async () => handler(check(request) as never, extra));
    // `Server` wraps a tools/call handler in a second parse of its own (and a check of its result, which birdie's
    // results pass): registered as any other request, the check above answers first.
    if (method === 'tools/call')
      return Object.getPrototypeOf(Server.prototype).setRequestHandler.call(server, lenient, run);
    return server.setRequestHandler(lenient as never, run as never);
  };

  handle(types.ListToolsRequestSchema, async () => ({ tools: await give(lists.tools) }));

  /** The tools approved "for this session" on this connection (its birdie session), as the REPL keeps them. */
  const approvals: SessionApproval[] = [];
  handle(types.CallToolRequestSchema, (request, extra) => callTool(request, extra));

  const callTool = async (
    request: { params: { name: string; arguments?: Record<string, unknown> } },
    extra: { requestId: string | number; signal: AbortSignal },
  ) => {
    const { session } = await open();
    const refused = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: true });
    let cwd = host.cwd;
    if (!host.serve) return runCall(request, extra, session, cwd);
    const { admitTurn, isApiError } = await import('@birdie/server');
    // Each call is a run of the user, admitted against `serve.limits` as `birdie serve` admits a turn: it holds one
    // of the user's turn slots until it ends, however it ends.
    let admission: TurnAdmission;
    try {
      admission = await admitTurn(host.store, session.userId, host.serve.limits);
    } catch (error) {
      if (!isApiError(error, 'concurrent-turns-limit', 'turns-per-minute-limit')) throw error;
      throw new types.McpError(MCP_LIMIT_ERROR, error.message, {
        code: error.code,
        ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}),
      });
    }
    // A call that ends before its run is logged ran nothing (the workspace over its quota, an unknown tool, arguments
    // refused): it gives its place in the minute back, as a turn refused before it started does.
    let logged = false;
    try {
      // The user's workspace, as a turn of `birdie serve` gets it: refused while it holds more than the quota.
      try {
        cwd = await host.serve.workspaces.admit(session);
      } catch (error) {
        if (!isApiError(error, 'workspace-bytes-exceeded', 'workspace-unusable')) throw error;
        // The operator learns which folder and why (the client is told less: no server paths).
        if (error.cause instanceof Error) warn(host.io, `birdie: ${error.cause.message}`);
        return refused(`Refused: ${error.message}`);
      }
      return await runCall(request, extra, session, cwd, () => {
        logged = true;
      });
    } finally {
      // Either gives the user's slot back; neither rejects.
      await (logged ? admission.release() : admission.withdraw());
    }
  };

  /** Runs an admitted call in `cwd`, asking the client's approval through elicitation where a call needs it. */
  const runCall = async (
    request: { params: { name: string; arguments?: Record<string, unknown> } },
    extra: { requestId: string | number; signal: AbortSignal },
    session: Session,
    cwd: string,
    onLogged?: () => void,
  ) => {
    const client = clientName();
    const ask = async (question: McpApprovalQuestion): Promise<McpApprovalAnswer> => {
      // An empty `elicitation` capability means form elicitation (the 2025-06-18 revision had no modes).
      if (!server.getClientCapabilities()?.elicitation) return 'unavailable';
      // The form carries only the decision: the message is all the user sees, so it holds the call whole (invisible
      // characters written out), or the call is not offered for approval at all.
      const message = `Allow this call? ${escapeInvisible(question.description)}`;
      if (message.length > APPROVAL_QUESTION_MAX) return 'too-long';
      const result = await server.request(
        {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message,
            requestedSchema: approvalForm(question.offers),
          },
        },
        types.ElicitResultSchema,
        { relatedRequestId: extra.requestId, signal: extra.signal, timeout: 60 * 60 * 1000 },
      );
      return approvalAnswer(result);
    };
    const outcome = await callMcpTool(host, request.params.name, request.params.arguments ?? {}, {
      session,
      cwd,
      ask,
      signal: extra.signal,
      trigger: `mcp ${client}`,
      approvals,
      ...(onLogged ? { onLogged } : {}),
    }).catch((error: unknown) => {
      // No such tool: a protocol error (the MCP specification's "unknown tools"), not a result of one.
      if (isMcpUnknownToolError(error))
        throw new types.McpError(types.ErrorCode.InvalidParams, error.message);
      throw error;
    });
    return {
      content: [
        { type: 'text' as const, text: outcome.content },
        ...(outcome.images ?? []).map((image) => ({
          type: 'image' as const,
          data: image.data,
          mimeType: image.mimeType,
        })),
      ],
      ...(outcome.ok ? {} : { isError: true }),
    };
  };

  handle(types.ListResourcesRequestSchema, async () => ({
    resources: await give(lists.resources),
  }));

  handle(types.ReadResourceRequestSchema, async (request) => {
    try {
      return { contents: [await readResource(host, await sessionKey(), request.params.uri)] };
    } catch (error) {
      if (isMcpResourceError(error)) throw new types.McpError(types.ErrorCode.InvalidParams, error.message);
      throw error;
    }
  });

  handle(types.ListPromptsRequestSchema, async () => ({
    prompts: await give(lists.prompts),
  }));

  handle(types.GetPromptRequestSchema, async (request) => {
    await sessionKey();
    const prompt = getPrompt(host, request.params.name, request.params.arguments);
    if (!prompt)
      throw new types.McpError(types.ErrorCode.InvalidParams, `no prompt "${request.params.name}"`);
    return prompt;
  });

  return {
    server,
    session: async () => (await open()).session,
    busy: () => work.busy,
    settled: () => settled,
  };
}

/**
 * `birdie mcp` over stdio: the server on the given streams (the process's stdin and stdout) until the client closes
 * its input and every request it made is answered (see `McpStdioTransport`), or `signal` stops it at once. Nothing
 * else may write to `output`: it carries the protocol.
 */
export async function serveMcpStdio(
  host: McpHost,
  options: McpServerOptions & {
    input: NodeJS.ReadableStream;
    output: NodeJS.WritableStream;
    signal?: AbortSignal;
  },
): Promise<void> {
  const { McpStdioTransport } = await import('./mcp-stdio-transport.js');
  const { server, settled } = await createMcpServer(host, options);
  const transport = new McpStdioTransport(options.input, options.output, {
    onRefused: (note) => warn(host.io, `birdie: ${note}`),
  });
  const closed = new Promise<void>((resolve) => {
    const closing = server.onclose;
    server.onclose = () => {
      closing?.();
      resolve();
    };
  });
  const stop = () => void server.close();
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    await server.connect(transport);
    await closed;
    // The calls the close aborted end their runs as `cancelled` before the caller closes the host's store.
    await settledWithin([settled()]);
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
}
