import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { McpServerConfig } from '@birdie/skill-parser';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { AgentError } from './errors.js';
import { endGroup, groupAlive, signalGroup, usesProcessGroups, wrapCommand } from './process-group.js';

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
  pid?: number;
  pidFile?: string;
  tools?: StructuredToolInterface[];
  pending?: Promise<McpServerTools>;
  failure?: { error: AgentError; at: number };
}

const GROUPS = usesProcessGroups();
const live = new Set<McpManager>();
let exitHookInstalled = false;

/** Last resort: on process exit (sync only) kill every group a manager still owns. */
function onExit() {
  for (const manager of live) manager.killAllSync();
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
    if (connection?.tools && connection.pid !== undefined && !groupAlive(connection.pid, false)) {
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
        await this.#stop(fresh);
        const error =
          cause instanceof AgentError
            ? cause
            : new AgentError('mcp-unavailable', `MCP server "${name}" failed to start: ${short(cause)}`, {
                cause,
              });
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

  /** Pids of running servers (process-group leaders when `setsid` is available). */
  pids(): number[] {
    return [...this.#connections.values()].flatMap((c) => (c.pid !== undefined ? [c.pid] : []));
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#connections.entries()].map(([name, c]) => this.#dispose(name, c)));
    live.delete(this);
  }

  /** @internal Used by the process-exit hook. */
  killAllSync(): void {
    for (const c of this.#connections.values())
      if (c.pid !== undefined) signalGroup(c.pid, 'SIGKILL', GROUPS);
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
      mcpServers: { [name]: this.#connectionConfig(config, connection) as never },
      onConnectionError: 'throw',
      useStandardContentBlocks: false,
      prefixToolNameWithServerName: false,
    });
    connection.client = client;
    live.add(this);
    if (!exitHookInstalled) {
      process.once('exit', onExit);
      exitHookInstalled = true;
    }
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
      this.#readPid(connection);
      return tools as StructuredToolInterface[];
    } finally {
      clearTimeout(timer);
      this.#readPid(connection);
    }
  }

  #connectionConfig(config: McpServerConfig, connection: Connection): Record<string, unknown> {
    if (config.transport !== 'stdio') {
      return {
        transport: config.transport === 'sse' ? 'sse' : 'http',
        url: config.url,
        ...(config.headers ? { headers: config.headers } : {}),
      };
    }
    // `node` in a skill means "a Node.js", and the one running us is the one we know exists.
    const command = config.command === 'node' ? process.execPath : config.command;
    const dir = mkdtempSync(join(tmpdir(), 'birdie-mcp-'));
    connection.pidFile = join(dir, 'pid');
    const wrapped = wrapCommand(command, config.args, connection.pidFile);
    return {
      transport: 'stdio',
      command: wrapped.command,
      args: wrapped.args,
      stderr: 'ignore',
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
    };
  }

  #readPid(connection: Connection): void {
    if (connection.pid !== undefined || !connection.pidFile) return;
    try {
      const pid = Number.parseInt(readFileSync(connection.pidFile, 'utf8'), 10);
      if (Number.isInteger(pid) && pid > 0) connection.pid = pid;
    } catch {}
  }

  async #stop(connection: Connection): Promise<void> {
    this.#readPid(connection);
    const client = connection.client;
    connection.client = undefined;
    connection.tools = undefined;
    if (connection.pid !== undefined) await endGroup(connection.pid, GROUPS, 500);
    // The client's own close ends the transport; the group is already gone, so this returns at once.
    await client?.close().catch(() => {});
    if (connection.pidFile) rmSync(join(connection.pidFile, '..'), { recursive: true, force: true });
    connection.pid = undefined;
    connection.pidFile = undefined;
  }

  async #dispose(name: string, connection: Connection): Promise<void> {
    if (this.#connections.get(name) === connection) this.#connections.delete(name);
    // Kill first: a server still in its handshake would otherwise hold us until the connect timeout.
    const pending = connection.pending;
    await this.#stop(connection);
    await pending?.catch(() => {});
  }
}

function short(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
