import { pathToFileURL } from 'node:url';
import type { ServerExit, ServerProcess } from '@birdie/entrypoints';
import type { McpServerConfig } from '@birdie/skill-parser';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AgentError } from './errors.js';
import { MAX_TIMER_MS, timerMs } from './limits.js';
import { loadMcpSdk, type McpSdk, openMcpClient } from './mcp-client.js';
import type { McpNotice, McpScope, McpServerRequests, McpTurn } from './mcp-connection.js';
import type { McpToolResultLike } from './mcp-content.js';
import type {
  McpPrompt,
  McpPromptResult,
  McpResource,
  McpResourceContents,
  McpResourceTemplate,
  McpServerCapabilities,
} from './mcp-protocol.js';
import { shownAddress, unreachableReason } from './network-failure.js';

export interface McpManagerOptions {
  /**
   * Connect + list tools, ms. Default 15000. A server whose skill declares a longer `timeout` gets that long instead
   * (a cold `npx -y` server can take more than 15 s to start).
   */
  connectTimeoutMs?: number;
  /** One tool call when the server declares no `timeout`, ms. Default 60000. */
  toolTimeoutMs?: number;
  /** After a failed start, how long to return the same error before trying again, ms. Default 30000. */
  retryAfterMs?: number;
  /**
   * Who answers a server's sampling and elicitation requests that no turn's call owns: asked while none of the
   * server's calls runs, or during a call made without a scope (default: refused, declined).
   */
  requests?: McpServerRequests;
  /** Hears servers' log messages and change news that no single running call owns. */
  onNotice?: (notice: McpNotice) => void;
}

export interface McpResourceList {
  resources: McpResource[];
  templates: McpResourceTemplate[];
}

export type { McpResourceContents } from './mcp-protocol.js';

/** One tool a server lists, as the model is offered it. */
export interface McpServerTool {
  name: string;
  description: string;
  /** The tool's JSON Schema (`inputSchema`). */
  parameters: Record<string, unknown>;
}

export interface McpServerTools {
  server: string;
  tools: McpServerTool[];
  /** The server declares resources (`mcp_read_resource` is offered for it). */
  resources: boolean;
  /** The per-call timeout in ms (the server's `timeout`, or the default). */
  toolTimeoutMs: number;
}

export interface McpCallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  onProgress?: (notice: { progress: number; total?: number; message?: string }) => void;
  scope?: McpScope;
}

interface Connection {
  key: string;
  /** A remote server's address (streamable HTTP, SSE): what a call that cannot reach it names. */
  url?: string;
  client?: Client;
  server?: ServerProcess;
  tools?: McpServerTool[];
  /** The last listing, kept across a `tools/list_changed` so tools that did not change keep their objects. */
  previous?: McpServerTool[];
  /** Counts `tools/list_changed` news: a listing that crossed one is used once, not kept. */
  generation: number;
  pending?: Promise<McpServerTools>;
  failure?: { error: AgentError; at: number };
  /** The calls running on this connection, counted by the scope they run in (`UNSCOPED` for calls without one). */
  calls: Map<McpScope, number>;
  /** The runs that made a call on this connection and have not ended yet (see `noticeListener`). */
  turns: Set<McpTurn>;
  /** Subscribed resources: uri → the sessions (owners) that attached it. */
  subscribers?: Map<string, Set<string>>;
}

/** A subscribed resource the server said changed, waiting for its session's next model call. */
export interface McpResourceUpdate {
  /** The skill whose server holds it. */
  skill: string;
  uri: string;
}

/** The owner of calls made without a scope: the manager's own options answer for them. */
const UNSCOPED: McpScope = {};

/** `listed`, with the objects of `before` for the tools that did not change (the toolset caches by object). */
function sameTools(before: McpServerTool[] | undefined, listed: McpServerTool[]): McpServerTool[] {
  if (!before) return listed;
  const known = new Map(before.map((t) => [JSON.stringify(t), t]));
  const tools = listed.map((t) => known.get(JSON.stringify(t)) ?? t);
  return tools.length === before.length && tools.every((t, i) => t === before[i]) ? before : tools;
}

function hasResources(connection: Connection): boolean {
  return connection.client?.getServerCapabilities()?.resources !== undefined;
}

/**
 * Whose handlers hear what a server sends on one connection: the scope of the calls running on it. The protocol does
 * not say which of several calls a server's request belongs to (over stdio nothing ties it to a call), so with calls
 * from two scopes running at once nobody owns it (`undefined`), and it is refused rather than guessed.
 */
function owner(connection: Connection): McpScope | 'none' | undefined {
  const scopes = [...connection.calls.keys()];
  if (scopes.length === 0) return 'none';
  return scopes.length === 1 ? scopes[0] : undefined;
}

/**
 * Who hears what a server says on one connection. While calls run, their owner (as for requests); while none runs,
 * the one run that holds the connection (its call returned, the run goes on). A run that holds it too makes either
 * case ambiguous: a late word about its call could be taken for the running call's. Ambiguous or unowned notices go
 * to `fallback`, the process-wide listener, never to a run.
 */
function noticeListener(
  connection: Connection,
  fallback: ((notice: McpNotice) => void) | undefined,
): ((notice: McpNotice) => void) | undefined {
  const turns = holders(connection);
  const running = owner(connection);
  if (running === undefined || running === UNSCOPED) return fallback;
  if (running === 'none') {
    const only = turns.length === 1 ? turns[0] : undefined;
    return only ? (notice) => only.onNotice(notice) : fallback;
  }
  const others = turns.some((turn) => turn !== running.turn);
  return (others ? undefined : running.onNotice) ?? fallback;
}

/** The runs holding a connection, the ended ones forgotten. */
function holders(connection: Connection): McpTurn[] {
  for (const turn of connection.turns) if (turn.ended) connection.turns.delete(turn);
  return [...connection.turns];
}

function serverName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || 'server';
}

/**
 * One MCP connection per skill, opened lazily the first time a turn allows that skill, through the MCP SDK's own
 * `Client` (one per server, so a broken server cannot take the others down). The client declares roots, sampling
 * and form elicitation. What a server asks goes only to the scope of the call running on its connection (see
 * `owner`); what it says, to that scope or, between calls, to the one run holding the connection (see
 * `noticeListener`): under `birdie serve` one manager serves every user's turns, so nothing may reach another turn.
 */
export class McpManager {
  readonly #connections = new Map<string, Connection>();
  readonly #options: Required<
    Pick<McpManagerOptions, 'connectTimeoutMs' | 'toolTimeoutMs' | 'retryAfterMs'>
  > &
    McpManagerOptions;
  #roots: Array<{ uri: string; name?: string }> = [];
  /** Per session (owner): the subscribed resources that changed since its last model call, by `skill\nuri`. */
  readonly #updates = new Map<string, Map<string, McpResourceUpdate>>();
  #sdk?: Promise<McpSdk>;
  #closed = false;

  constructor(options: McpManagerOptions = {}) {
    this.#options = {
      ...options,
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      toolTimeoutMs: options.toolTimeoutMs ?? 60_000,
      retryAfterMs: options.retryAfterMs ?? 30_000,
    };
  }

  /** The tools of the server a skill declares; rejects with an `AgentError` (`mcp-unavailable`) fit to show. */
  async tools(skillName: string, config: McpServerConfig): Promise<McpServerTools> {
    if (this.#closed) throw new AgentError('closed', 'The agent is closed.');
    const name = serverName(skillName);
    const key = JSON.stringify(config);
    let connection = this.#connections.get(name);
    if (connection && connection.key !== key) {
      await this.#dispose(name, connection);
      connection = undefined;
    }
    const timeoutMs = Math.min(
      config.timeout !== undefined ? timerMs(config.timeout) : this.#options.toolTimeoutMs,
      MAX_TIMER_MS,
    );
    if (connection?.client && connection.server?.pid() !== undefined && !connection.server.alive()) {
      // The server died since the last turn: drop it and reconnect below.
      await this.#dispose(name, connection);
      connection = undefined;
    }
    if (connection?.tools)
      return {
        server: name,
        tools: connection.tools,
        resources: hasResources(connection),
        toolTimeoutMs: timeoutMs,
      };
    if (connection?.pending) return connection.pending;
    if (connection?.failure && Date.now() - connection.failure.at < this.#options.retryAfterMs)
      throw connection.failure.error;

    // Connected, but its tools changed (`tools/list_changed`): list them again on the same connection.
    const fresh: Connection = connection?.client
      ? connection
      : {
          key,
          generation: 0,
          calls: new Map(),
          turns: new Set(),
          ...('url' in config ? { url: config.url } : {}),
        };
    this.#connections.set(name, fresh);
    const generation = fresh.generation;
    // A skill that allows its calls longer than the start-up limit allows its start-up as long.
    const startMs = Math.min(
      Math.max(this.#options.connectTimeoutMs, config.timeout !== undefined ? timerMs(config.timeout) : 0),
      MAX_TIMER_MS,
    );
    fresh.pending = this.#withTimeout(name, this.#listTools(name, skillName, config, fresh), startMs)
      .then((listed) => {
        const tools = sameTools(fresh.previous, listed);
        fresh.previous = tools;
        if (fresh.generation === generation) fresh.tools = tools;
        return { server: name, tools, resources: hasResources(fresh), toolTimeoutMs: timeoutMs };
      })
      .catch(async (cause) => {
        // Read before the stop removes it: what the server said on its way out is usually the real cause.
        const said = fresh.server?.stderrTail() ?? '';
        // A closed connection usually means the server exited: how it did can trail the SDK's news by a moment.
        const closed = /connection closed/i.test(short(cause));
        const ended = closed ? await fresh.server?.exitStatus(500) : undefined;
        await this.#stop(fresh);
        const error =
          cause instanceof AgentError
            ? cause
            : new AgentError(
                'mcp-unavailable',
                startFailure(name, cause, said, ended, 'url' in config ? config.url : undefined),
                { cause },
              );
        fresh.failure = { error, at: Date.now() };
        throw error;
      })
      .finally(() => {
        fresh.pending = undefined;
      });
    return fresh.pending;
  }

  /** Calls a tool on a skill's server; an error result (`isError`) rejects with the server's text. */
  async callTool(
    skillName: string,
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<McpToolResultLike> {
    const connection = this.#connected(skillName);
    const client = connection.client;
    const scope = options.scope ?? UNSCOPED;
    connection.calls.set(scope, (connection.calls.get(scope) ?? 0) + 1);
    holders(connection);
    if (scope.turn && !scope.turn.ended) {
      connection.turns.add(scope.turn);
      scope.turn.hold?.();
    }
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      });
      return result as McpToolResultLike & { isError?: boolean };
    } catch (error) {
      const { url } = connection;
      const unreachable = url === undefined ? undefined : unreachableReason(error);
      if (url === undefined || unreachable === undefined) throw error;
      // The toolset forgets the connection on this code, so the next turn connects again.
      throw new AgentError(
        'mcp-unavailable',
        `MCP server "${serverName(skillName)}" cannot be reached at ${shownAddress(url)} (${unreachable})`,
        { cause: error },
      );
    } finally {
      const left = (connection.calls.get(scope) ?? 1) - 1;
      if (left > 0) connection.calls.set(scope, left);
      else connection.calls.delete(scope);
    }
  }

  /** A server's resources and URI templates (every page). */
  async listResources(skillName: string, signal?: AbortSignal): Promise<McpResourceList> {
    const client = this.#connected(skillName).client;
    const options = signal ? { signal } : {};
    const resources: McpResourceList['resources'] = [];
    const templates: McpResourceList['templates'] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listResources(cursor ? { cursor } : {}, options);
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    do {
      const page = await client.listResourceTemplates(cursor ? { cursor } : {}, options);
      templates.push(...page.resourceTemplates);
      cursor = page.nextCursor;
    } while (cursor);
    return { resources, templates };
  }

  /** `resources/read` on a skill's server. */
  async readResource(skillName: string, uri: string, signal?: AbortSignal): Promise<McpResourceContents> {
    return this.#connected(skillName).client.readResource({ uri }, signal ? { signal } : {});
  }

  /** What a connected server declares (`prompts`, `resources.subscribe`, `completions`, …); undefined before it connects. */
  capabilities(skillName: string): McpServerCapabilities | undefined {
    return this.#connections.get(serverName(skillName))?.client?.getServerCapabilities();
  }

  /** A server's prompts (every page). */
  async listPrompts(skillName: string, signal?: AbortSignal): Promise<McpPrompt[]> {
    const client = this.#connected(skillName).client;
    const prompts: McpPrompt[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPrompts(cursor ? { cursor } : {}, signal ? { signal } : {});
      prompts.push(...page.prompts);
      cursor = page.nextCursor;
    } while (cursor);
    return prompts;
  }

  /** `prompts/get`: a prompt's messages, its arguments filled in. */
  async getPrompt(
    skillName: string,
    name: string,
    args: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<McpPromptResult> {
    return this.#connected(skillName).client.getPrompt({ name, arguments: args }, signal ? { signal } : {});
  }

  /**
   * `completion/complete` for a prompt's argument: the values the server suggests for what is typed so far, given the
   * arguments already filled in. Empty when the server does not declare completions.
   */
  async completePromptArgument(
    skillName: string,
    prompt: string,
    argument: { name: string; value: string },
    filled: Record<string, string> = {},
  ): Promise<string[]> {
    const connection = this.#connected(skillName);
    if (!connection.client.getServerCapabilities()?.completions) return [];
    const result = await connection.client.complete({
      ref: { type: 'ref/prompt', name: prompt },
      argument,
      ...(Object.keys(filled).length > 0 ? { context: { arguments: filled } } : {}),
    });
    return result.completion.values;
  }

  /**
   * Subscribes `owner` (a session) to a resource: `resources/subscribe` the first time anyone attaches it, when the
   * server supports subscriptions (false otherwise). Its `notifications/resources/updated` are kept for `takeUpdates`.
   */
  async subscribe(skillName: string, uri: string, owner: string): Promise<boolean> {
    const connection = this.#connected(skillName);
    if (!connection.client.getServerCapabilities()?.resources?.subscribe) return false;
    connection.subscribers ??= new Map();
    const owners = connection.subscribers.get(uri) ?? new Set<string>();
    if (owners.has(owner)) return true;
    if (owners.size === 0) await connection.client.subscribeResource({ uri });
    owners.add(owner);
    connection.subscribers.set(uri, owners);
    return true;
  }

  /** Ends `owner`'s subscriptions (its session ended); a resource nobody holds any more is unsubscribed. */
  async unsubscribeAll(owner: string): Promise<void> {
    this.#updates.delete(owner);
    const work: Array<Promise<unknown>> = [];
    for (const connection of this.#connections.values())
      for (const [uri, owners] of connection.subscribers ?? []) {
        if (!owners.delete(owner) || owners.size > 0) continue;
        connection.subscribers?.delete(uri);
        const client = connection.client;
        if (client) work.push(client.unsubscribeResource({ uri }).catch(() => undefined));
      }
    await Promise.all(work);
  }

  /** The resources `owner` subscribed to that changed since the last call, once each (and forgotten). */
  takeUpdates(owner: string): McpResourceUpdate[] {
    const updates = this.#updates.get(owner);
    if (!updates) return [];
    this.#updates.delete(owner);
    return [...updates.values()];
  }

  /** The folders servers may work in (`roots/list`); a change is announced to every connected server. */
  setRoots(folders: readonly string[]): void {
    const roots = folders.map((folder) => ({ uri: pathToFileURL(folder).href, name: folder }));
    if (JSON.stringify(roots) === JSON.stringify(this.#roots)) return;
    const announce = this.#roots.length > 0 || roots.length > 0;
    this.#roots = roots;
    if (!announce) return;
    for (const connection of this.#connections.values())
      if (connection.tools) void connection.client?.sendRootsListChanged().catch(() => {});
  }

  /** Forget a server whose calls fail because its process is gone; the next turn reconnects. */
  async markDead(skillName: string): Promise<void> {
    const name = serverName(skillName);
    const connection = this.#connections.get(name);
    if (connection) await this.#dispose(name, connection);
  }

  /** Pids of running stdio servers (process-group leaders where `setsid` exists). */
  pids(): number[] {
    return [...this.#connections.values()].flatMap((c) => {
      const pid = c.server?.pid();
      return pid !== undefined ? [pid] : [];
    });
  }

  /**
   * Ends every server. (A process that exits without calling it still takes its servers along: entrypoints
   * kills what it started on exit, and under its process guard they die with the process even on SIGKILL.)
   */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#connections.entries()].map(([name, c]) => this.#dispose(name, c)));
  }

  /** The connection of a skill's server, with its client (after `tools()` connected it). */
  #connected(skillName: string): Connection & { client: Client } {
    const name = serverName(skillName);
    const connection = this.#connections.get(name);
    if (!connection?.client)
      throw new AgentError('mcp-unavailable', `MCP server "${name}" is not connected.`);
    return connection as Connection & { client: Client };
  }

  /**
   * Who answers what the server on `connection` asks: the owning call's scope, and only it (a scope without a
   * handler refuses; two owners at once, nobody); the manager's options when no scoped call runs.
   */
  #requests(connection: Connection): McpServerRequests {
    const scope = owner(connection);
    if (scope === undefined) return {};
    return (scope === 'none' || scope === UNSCOPED ? this.#options.requests : scope.requests) ?? {};
  }

  #notice(connection: Connection, notice: McpNotice, skillName: string): void {
    // The tool set is listed again before the next model call.
    if (notice.kind === 'tools-changed') {
      connection.tools = undefined;
      connection.generation += 1;
    }
    // A subscribed resource changed: each session holding it gets the fresh content at its next model call.
    if (notice.kind === 'resource-updated')
      for (const owner of connection.subscribers?.get(notice.uri) ?? []) {
        const updates = this.#updates.get(owner) ?? new Map<string, McpResourceUpdate>();
        updates.set(`${skillName}\n${notice.uri}`, { skill: skillName, uri: notice.uri });
        this.#updates.set(owner, updates);
      }
    noticeListener(connection, this.#options.onNotice)?.(notice);
  }

  async #listTools(
    name: string,
    skillName: string,
    config: McpServerConfig,
    connection: Connection,
  ): Promise<McpServerTool[]> {
    if (!connection.client) {
      const sdk = await this.#loadSdk();
      await openMcpClient(
        sdk,
        name,
        config,
        {
          requests: () => this.#requests(connection),
          roots: () => this.#roots,
          notice: (notice) => this.#notice(connection, notice, skillName),
        },
        (server) => {
          connection.server = server;
        },
        (client) => {
          connection.client = client;
        },
      );
    }
    const client = connection.client as Client;
    const tools: McpServerTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      for (const tool of page.tools)
        tools.push({
          name: tool.name,
          description: tool.description ?? tool.title ?? '',
          parameters: tool.inputSchema as Record<string, unknown>,
        });
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  async #loadSdk(): Promise<McpSdk> {
    // `@modelcontextprotocol/sdk` is an optional peer: only imported when a skill needs MCP.
    this.#sdk ??= loadMcpSdk();
    try {
      return await this.#sdk;
    } catch (cause) {
      this.#sdk = undefined;
      throw new AgentError(
        'mcp-sdk-missing',
        'A skill declares an MCP server but @modelcontextprotocol/sdk is not installed.',
        { cause },
      );
    }
  }

  async #withTimeout<T>(name: string, work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new AgentError(
              'mcp-unavailable',
              `MCP server "${name}" did not answer within ${ms} ms; its tools are unavailable.`,
            ),
          ),
        ms,
      );
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #stop(connection: Connection): Promise<void> {
    const client = connection.client;
    const server = connection.server;
    connection.client = undefined;
    connection.tools = undefined;
    // A new connection starts without subscriptions (the server forgot them with this one).
    connection.subscribers = undefined;
    connection.server = undefined;
    await server?.stop({ graceMs: 500 });
    // The client's own close ends the transport; the server is already gone, so this returns at once.
    await client?.close().catch(() => {});
  }

  async #dispose(name: string, connection: Connection): Promise<void> {
    if (this.#connections.get(name) === connection) this.#connections.delete(name);
    // Kill first: a server still in its handshake would otherwise hold us until the connect timeout.
    const pending = connection.pending;
    await this.#stop(connection);
    await pending?.catch(() => {});
  }
}

/**
 * Why a server did not start. The SDK only says "Connection closed" when the process exits during the handshake;
 * the server's own last stderr lines say why, so they replace that phrase.
 */
function startFailure(
  name: string,
  cause: unknown,
  stderr: string,
  ended: ServerExit | undefined,
  url: string | undefined,
): string {
  const unreachable = url === undefined ? undefined : unreachableReason(cause);
  if (url !== undefined && unreachable)
    return `MCP server "${name}" failed to start: cannot reach ${shownAddress(url)} (${unreachable})`;
  const text = short(cause);
  const how = ended ? (ended.signal ? `: killed by ${ended.signal}` : ` with exit code ${ended.code}`) : '';
  if (/connection closed/i.test(text) && (how !== '' || stderr !== '')) {
    const said = stderr === '' ? '' : ` Its last stderr lines:\n${stderr}`;
    return `MCP server "${name}" exited during start-up${how}.${said}`;
  }
  return `MCP server "${name}" failed to start: ${text}${stderr === '' ? '' : `\nIts last stderr lines:\n${stderr}`}`;
}

function short(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
