import { type ServerExit, type ServerProcess, wrapServerCommand } from '@birdie/entrypoints';
import type { McpServerConfig } from '@birdie/skill-parser';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { AgentError } from './errors.js';
import { progressHooks } from './mcp-progress.js';

type Adapters = typeof import('@langchain/mcp-adapters');
type Client = InstanceType<Adapters['MultiServerMCPClient']>;

export interface McpManagerOptions {
  /** Connect + list tools, ms. Default 15000. */
  connectTimeoutMs?: number;
  /** One tool call when the server declares no `timeout`, ms. Default 60000. */
  toolTimeoutMs?: number;
  /** After a failed start, how long to return the same error before trying again, ms. Default 30000. */
  retryAfterMs?: number;
  /** How `@langchain/mcp-adapters` is loaded (an optional peer: only imported when a skill needs MCP). */
  loadAdapters?: () => Promise<Adapters>;
}

export interface McpServerTools {
  server: string;
  tools: StructuredToolInterface[];
  /** The per-call timeout in ms (the server's `timeout`, or the default). */
  toolTimeoutMs: number;
}

interface Connection {
  key: string;
  client?: Client;
  /** A stdio server's process (own group, environment allowlist, process guard): @birdie/entrypoints owns it. */
  server?: ServerProcess;
  tools?: StructuredToolInterface[];
  pending?: Promise<McpServerTools>;
  failure?: { error: AgentError; at: number };
}

function serverName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || 'server';
}

/**
 * One MCP connection per skill, opened lazily the first time a turn allows that skill, through a
 * `MultiServerMCPClient` per server so a broken server cannot take the others down.
 */
export class McpManager {
  readonly #connections = new Map<string, Connection>();
  readonly #options: Required<Omit<McpManagerOptions, 'loadAdapters'>> &
    Pick<McpManagerOptions, 'loadAdapters'>;
  #adapters?: Promise<Adapters>;
  #closed = false;

  constructor(options: McpManagerOptions = {}) {
    this.#options = {
      connectTimeoutMs: options.connectTimeoutMs ?? 15_000,
      toolTimeoutMs: options.toolTimeoutMs ?? 60_000,
      retryAfterMs: options.retryAfterMs ?? 30_000,
      loadAdapters: options.loadAdapters,
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
    const timeoutMs = config.timeout !== undefined ? config.timeout * 1000 : this.#options.toolTimeoutMs;
    if (connection?.tools && connection.server?.pid() !== undefined && !connection.server.alive()) {
      // The server died since the last turn: drop it and reconnect below.
      await this.#dispose(name, connection);
      connection = undefined;
    }
    if (connection?.tools) return { server: name, tools: connection.tools, toolTimeoutMs: timeoutMs };
    if (connection?.pending) return connection.pending;
    if (connection?.failure && Date.now() - connection.failure.at < this.#options.retryAfterMs)
      throw connection.failure.error;

    const fresh: Connection = { key };
    this.#connections.set(name, fresh);
    fresh.pending = this.#connect(name, config, fresh)
      .then((tools) => {
        fresh.tools = tools;
        return { server: name, tools, toolTimeoutMs: timeoutMs };
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
            : new AgentError('mcp-unavailable', startFailure(name, cause, said, ended), { cause });
        fresh.failure = { error, at: Date.now() };
        throw error;
      })
      .finally(() => {
        fresh.pending = undefined;
      });
    return fresh.pending;
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

  async #connect(
    name: string,
    config: McpServerConfig,
    connection: Connection,
  ): Promise<StructuredToolInterface[]> {
    this.#adapters ??= (this.#options.loadAdapters ?? (() => import('@langchain/mcp-adapters')))();
    let adapters: Adapters;
    try {
      adapters = await this.#adapters;
    } catch (cause) {
      this.#adapters = undefined;
      throw new AgentError(
        'mcp-adapters-missing',
        'A skill declares an MCP server but @langchain/mcp-adapters is not installed.',
        { cause },
      );
    }
    const client = new adapters.MultiServerMCPClient({
      mcpServers: { [name]: (await this.#connectionConfig(config, connection)) as never },
      onConnectionError: 'throw',
      useStandardContentBlocks: false,
      prefixToolNameWithServerName: false,
      ...progressHooks,
    });
    connection.client = client;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new AgentError(
              'mcp-unavailable',
              `MCP server "${name}" did not answer within ${this.#options.connectTimeoutMs} ms; its tools are unavailable.`,
            ),
          ),
        this.#options.connectTimeoutMs,
      );
    });
    try {
      const tools = await Promise.race([client.getTools(), timeout]);
      return tools as StructuredToolInterface[];
    } finally {
      clearTimeout(timer);
    }
  }

  async #connectionConfig(config: McpServerConfig, connection: Connection): Promise<Record<string, unknown>> {
    if (config.transport !== 'stdio') {
      return {
        transport: config.transport === 'sse' ? 'sse' : 'http',
        url: config.url,
        ...(config.headers ? { headers: config.headers } : {}),
      };
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
    connection.server = server;
    return {
      transport: 'stdio',
      command: server.command,
      args: server.args,
      env: server.env,
      stderr: 'ignore',
      ...(config.cwd ? { cwd: config.cwd } : {}),
    };
  }

  async #stop(connection: Connection): Promise<void> {
    const client = connection.client;
    const server = connection.server;
    connection.client = undefined;
    connection.tools = undefined;
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
function startFailure(name: string, cause: unknown, stderr: string, ended: ServerExit | undefined): string {
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
