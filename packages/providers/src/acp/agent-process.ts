import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  type AgentCapabilities,
  type ClientConnection,
  type ContentBlock,
  client,
  type LoadSessionResponse,
  methods,
  type NewSessionResponse,
  ndJsonStream,
  PROTOCOL_VERSION,
  type PromptResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { type ServerProcess, wrapServerCommand } from '@birdie/entrypoints';
import { ProviderError } from '../errors.js';

export interface AgentProcessSpec {
  command: string;
  args: readonly string[];
  env?: Record<string, string>;
  /** Where the program starts (each session has its own cwd besides). */
  cwd: string;
  /** Limit of each request but `session/prompt` (which lasts as long as the agent works), ms. */
  timeoutMs: number;
}

/** What the prompt in progress on a session does with what the agent sends for it. */
export interface PromptHandlers {
  onUpdate(update: SessionUpdate): void;
  onPermission(request: RequestPermissionRequest): Promise<RequestPermissionResponse>;
}

const STDERR_TAIL = 2_000;

/** What the program's watchers learn: the end of its stderr (for messages) and why it ended. */
interface ProcessState {
  stderr: string;
  exited: string | undefined;
  /** Settles once the program has exited and its stdout and stderr are read to the end. */
  closed: Promise<void>;
}

/**
 * A program that has gone away may still have its last words in the stderr pipe, and its exit may not be known yet
 * when its stdout ends: waits (briefly: a grandchild can hold the pipes open) until both are in.
 */
async function lastWords(state: ProcessState, gone: boolean): Promise<string> {
  if (gone || state.exited !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([state.closed, new Promise((resolve) => (timer = setTimeout(resolve, 500)))]);
    clearTimeout(timer);
  }
  return state.stderr;
}
const CANCELLED: RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/**
 * One ACP agent program and the client connection to it over its stdin/stdout (the SDK's `client()` and
 * `ndJsonStream`). The program runs through `@birdie/entrypoints`: its own process group, the environment allowlist
 * plus the config's `env`, and it dies with birdie even on SIGKILL where the process guard is on. Updates and
 * permission requests go to the prompt in progress on their session; those of no prompt (a `session/load` replaying
 * history) are dropped, and a permission request nobody is waiting for is answered `cancelled`.
 */
export class AgentProcess {
  readonly capabilities: AgentCapabilities;
  readonly #connection: ClientConnection;
  readonly #server: ServerProcess;
  readonly #spec: AgentProcessSpec;
  readonly #prompts: Map<string, PromptHandlers>;
  readonly #state: ProcessState;

  private constructor(init: {
    connection: ClientConnection;
    server: ServerProcess;
    spec: AgentProcessSpec;
    prompts: Map<string, PromptHandlers>;
    state: ProcessState;
    capabilities: AgentCapabilities;
  }) {
    this.#connection = init.connection;
    this.#server = init.server;
    this.#spec = init.spec;
    this.#prompts = init.prompts;
    this.#state = init.state;
    this.capabilities = init.capabilities;
  }

  /** Why the program is gone, once it is. */
  get exitReason(): string | undefined {
    return this.#state.exited;
  }

  static async start(spec: AgentProcessSpec): Promise<AgentProcess> {
    // `node` means a Node.js, and the one running birdie is the one known to exist.
    const command = spec.command === 'node' ? process.execPath : spec.command;
    let server: ServerProcess;
    try {
      server = await wrapServerCommand({
        command,
        args: spec.args,
        cwd: spec.cwd,
        ...(spec.env ? { env: spec.env } : {}),
      });
    } catch (cause) {
      throw failure(spec, `could not be started: ${(cause as Error).message}`, '', cause);
    }
    const child = spawn(server.command, server.args, {
      env: server.env,
      cwd: spec.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const state: ProcessState = {
      stderr: '',
      exited: undefined,
      closed: new Promise((resolve) => child.once('close', () => resolve())),
    };
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      state.stderr = (state.stderr + chunk).slice(-STDERR_TAIL);
    });
    const prompts = new Map<string, PromptHandlers>();
    const app = client({ name: 'birdie' })
      .onNotification(methods.client.session.update, ({ params }) => {
        prompts.get(params.sessionId)?.onUpdate(params.update);
      })
      .onRequest(methods.client.session.requestPermission, ({ params }) => {
        const prompt = prompts.get(params.sessionId);
        return prompt ? prompt.onPermission(params) : CANCELLED;
      });
    const connection = app.connect(
      ndJsonStream(
        Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
      ),
    );
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.once('exit', (code, signal) => {
      state.exited = signal ? `it was killed by ${signal}` : `it exited with code ${code}`;
      connection.close(new Error(state.exited));
      void server.stop();
    });
    // A write to a program that has gone away is reported by the request that made it, not as a crash.
    child.stdin.on('error', () => {});
    try {
      await spawned;
      const init = await withTimeout(
        connection.agent.request(methods.agent.initialize, {
          protocolVersion: PROTOCOL_VERSION,
          // birdie offers the inner agent no file system and no terminal: it runs its own tools.
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: 'birdie', version: '1' },
        }),
        spec.timeoutMs,
        'initialize',
      );
      if (init.protocolVersion !== PROTOCOL_VERSION)
        throw new Error(`it speaks ACP version ${init.protocolVersion}; birdie speaks ${PROTOCOL_VERSION}`);
      return new AgentProcess({
        connection,
        server,
        spec,
        prompts,
        state,
        capabilities: init.agentCapabilities ?? {},
      });
    } catch (cause) {
      connection.close();
      await server.stop();
      child.kill('SIGKILL');
      const stderr = await lastWords(state, true);
      throw failure(spec, describe(cause, state.exited), stderr, cause);
    }
  }

  get alive(): boolean {
    return this.exitReason === undefined && !this.#connection.signal.aborted;
  }

  newSession(cwd: string): Promise<NewSessionResponse> {
    return this.#call('session/new', () =>
      this.#connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] }),
    );
  }

  /** Loads a session the agent kept; its replayed history is not shown (no prompt is waiting for it). */
  async loadSession(sessionId: string, cwd: string): Promise<LoadSessionResponse> {
    const response = await this.#call('session/load', () =>
      this.#connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] }),
    );
    return response ?? {};
  }

  async setConfigOption(sessionId: string, configId: string, value: string): Promise<void> {
    await this.#call('session/set_config_option', () =>
      this.#connection.agent.request(methods.agent.session.setConfigOption, { sessionId, configId, value }),
    );
  }

  async setMode(sessionId: string, modeId: string): Promise<void> {
    await this.#call('session/set_mode', () =>
      this.#connection.agent.request(methods.agent.session.setMode, { sessionId, modeId }),
    );
  }

  /** One prompt turn; `handlers` get the session's updates and permission requests until it ends. */
  async prompt(sessionId: string, prompt: ContentBlock[], handlers: PromptHandlers): Promise<PromptResponse> {
    this.#prompts.set(sessionId, handlers);
    try {
      const response = await this.#connection.agent
        .request(methods.agent.session.prompt, { sessionId, prompt })
        .catch(async (cause: unknown) => {
          const stderr = await lastWords(this.#state, this.#connection.signal.aborted);
          throw failure(this.#spec, describe(cause, this.exitReason), stderr, cause);
        });
      // Updates sent just before the answer may still be on their way through the connection's handlers.
      await new Promise((resolve) => setImmediate(resolve));
      return response;
    } finally {
      if (this.#prompts.get(sessionId) === handlers) this.#prompts.delete(sessionId);
    }
  }

  cancel(sessionId: string): void {
    void this.#connection.agent.notify(methods.agent.session.cancel, { sessionId }).catch(() => {});
  }

  async close(): Promise<void> {
    this.#connection.close();
    await this.#server.stop();
  }

  async #call<T>(what: string, request: () => Promise<T>): Promise<T> {
    try {
      return await withTimeout(request(), this.#spec.timeoutMs, what);
    } catch (cause) {
      const stderr = await lastWords(this.#state, this.#connection.signal.aborted);
      throw failure(this.#spec, `${what} failed: ${describe(cause, this.exitReason)}`, stderr, cause);
    }
  }
}

function describe(cause: unknown, exited: string | undefined): string {
  if (exited) return exited;
  const error = cause as { message?: unknown; code?: unknown; data?: unknown } | null;
  const message = typeof error?.message === 'string' ? error.message : String(cause);
  if (error?.code === -32000)
    return `${message} (the agent wants you to log in: do that with the agent itself first)`;
  return message;
}

function failure(spec: AgentProcessSpec, reason: string, stderr: string, cause?: unknown): ProviderError {
  const tail = stderr.trim() ? `\n${stderr.trim().split('\n').slice(-8).join('\n')}` : '';
  return new ProviderError('agent-failed', `The ACP agent ${spec.command}: ${reason}${tail}`, {
    cause,
    vendor: 'acp',
  });
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer to ${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
