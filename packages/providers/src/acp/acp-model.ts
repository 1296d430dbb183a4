import type {
  LoadSessionResponse,
  NewSessionResponse,
  PromptResponse,
  SessionConfigOption,
  SessionConfigSelectOption,
} from '@agentclientprotocol/sdk';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { ProviderConfig } from '../config-schema.js';
import { ProviderError } from '../errors.js';
import { answerFor, findChannel, ToolCalls } from './activity.js';
import { AgentProcess } from './agent-process.js';
import { historySummary, newUserText, recordedSession, SESSION_KEY, withSummary } from './history.js';
import { TextQueue } from './text-queue.js';

export interface AcpChatModelOptions {
  /** Where the agent program starts, and the sessions' folder outside birdie's graph. Default: `process.cwd()`. */
  cwd?: string;
}

/** How long a cancelled prompt may take to stop before the call gives up waiting for it. */
const CANCEL_GRACE_MS = 5_000;

/**
 * An Agent Client Protocol agent used as birdie's chat model. It is an agent, not a plain model, so:
 * - one ACP session per birdie thread, started on first use; its id is kept in each reply's `response_metadata`
 *   (`acp_session_id`), so after a restart the session is loaded again where the agent supports `session/load`,
 *   else a new one starts and its first prompt carries a short summary of the thread;
 * - each turn sends only the new user text (the agent has the rest); birdie's system prompt is not sent;
 * - `bindTools` is a no-op: the agent runs its own tools, which birdie shows as `model-tool` events;
 * - its permission requests go to the graph's approval flow through the model channel, never to a prompt;
 * - its message chunks stream as tokens; the turn's abort sends `session/cancel`.
 */
export class AcpChatModel extends BaseChatModel {
  static override lc_name() {
    return 'AcpChatModel';
  }

  readonly #config: ProviderConfig;
  readonly #cwd: string;
  #process: Promise<AgentProcess> | undefined;
  /** birdie thread → live ACP session of the current program. */
  readonly #sessions = new Map<string, string>();

  constructor(config: ProviderConfig, options: AcpChatModelOptions = {}) {
    super({});
    this.#config = config;
    this.#cwd = options.cwd ?? process.cwd();
  }

  override _llmType(): string {
    return 'acp';
  }

  /** The agent brings its own tools; birdie's are not offered to it. */
  override bindTools(): this {
    return this;
  }

  /** Ends the agent program (birdie's exit and `stopAllProcesses` end it too). */
  async close(): Promise<void> {
    const running = this.#process;
    this.#process = undefined;
    this.#sessions.clear();
    const agent = await running?.catch(() => undefined);
    await agent?.close();
  }

  override async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    let text = '';
    let metadata: Record<string, unknown> = {};
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      text += chunk.text;
      metadata = { ...metadata, ...chunk.message.response_metadata };
    }
    return {
      generations: [{ text, message: new AIMessage({ content: text, response_metadata: metadata }) }],
    };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const channel = findChannel(runManager?.handlers);
    const thread = channel?.threadId ?? '';
    const cwd = channel?.cwd ?? this.#cwd;
    const signal = options.signal;
    signal?.throwIfAborted();
    const agent = await this.#agent();
    const session = await this.#session(agent, thread, cwd, messages);
    const text = withSummary(session.summary, newUserText(messages));

    const calls = new ToolCalls();
    const queue = new TextQueue<PromptResponse>();
    const turn = agent.prompt(session.id, [{ type: 'text', text }], {
      onUpdate: (update) => {
        if (update.sessionUpdate === 'agent_message_chunk') {
          if (update.content.type === 'text') queue.push(update.content.text);
          return;
        }
        const activity = calls.apply(update);
        if (activity) channel?.toolActivity(activity);
      },
      onPermission: async (request) => {
        // Outside birdie's graph nobody can be asked: a provider never prompts, so the answer is no.
        if (!channel) return answerFor({ type: 'reject' }, request.options);
        const decision = await channel.approve({
          id: request.toolCall.toolCallId,
          ...calls.describe(request),
        });
        return answerFor(decision, request.options);
      },
    });
    turn.then(
      (response) => queue.end(response),
      (error: unknown) => queue.fail(error),
    );
    const onAbort = () => {
      agent.cancel(session.id);
      // An agent that does not stop in time is left to finish on its own; this call ends now.
      setTimeout(() => queue.fail(signal?.reason ?? new Error('aborted')), CANCEL_GRACE_MS).unref();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const piece of queue) {
        const chunk = new ChatGenerationChunk({
          text: piece,
          message: new AIMessageChunk({ content: piece }),
        });
        yield chunk;
        await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
    const response = queue.result!;
    if (response.stopReason === 'cancelled' || signal?.aborted) {
      signal?.throwIfAborted();
      throw new ProviderError('agent-failed', 'The ACP agent cancelled the turn.', { vendor: 'acp' });
    }
    yield new ChatGenerationChunk({
      text: '',
      message: new AIMessageChunk({
        content: '',
        response_metadata: {
          model_provider: 'acp',
          model_name: this.#config.model,
          [SESSION_KEY]: session.id,
          stop_reason: response.stopReason,
        },
      }),
    });
  }

  /** The running program, started (and initialized) on first use and again after it died. */
  async #agent(): Promise<AgentProcess> {
    const running = await this.#process?.catch(() => undefined);
    if (running?.alive) return running;
    this.#sessions.clear();
    const starting = AgentProcess.start({
      command: this.#config.command ?? '',
      args: this.#config.args ?? [],
      ...(this.#config.env ? { env: this.#config.env } : {}),
      cwd: this.#cwd,
      timeoutMs: this.#config.timeout,
    });
    this.#process = starting;
    starting.catch(() => {
      if (this.#process === starting) this.#process = undefined;
    });
    return starting;
  }

  /** The thread's session: live, loaded again from the id the thread recorded, or new (with a summary to send). */
  async #session(
    agent: AgentProcess,
    thread: string,
    cwd: string,
    messages: readonly BaseMessage[],
  ): Promise<{ id: string; summary: string }> {
    const live = this.#sessions.get(thread);
    if (live) return { id: live, summary: '' };
    const recorded = recordedSession(messages);
    if (recorded && agent.capabilities.loadSession) {
      const loaded = await agent.loadSession(recorded, cwd).catch(() => undefined);
      if (loaded) {
        await this.#select(agent, recorded, loaded);
        this.#sessions.set(thread, recorded);
        return { id: recorded, summary: '' };
      }
    }
    const created = await agent.newSession(cwd);
    await this.#select(agent, created.sessionId, created);
    this.#sessions.set(thread, created.sessionId);
    return { id: created.sessionId, summary: historySummary(messages) };
  }

  /** `model` names one of the agent's models (a `model` config option) or one of its modes (its agents). */
  async #select(
    agent: AgentProcess,
    sessionId: string,
    state: NewSessionResponse | LoadSessionResponse,
  ): Promise<void> {
    const wanted = this.#config.model;
    if (wanted === 'default') return;
    const same = (a: string, b?: string | null) => a.toLowerCase() === b?.toLowerCase();
    const offered: string[] = [];
    for (const option of state.configOptions ?? []) {
      if (option.type !== 'select' || option.category !== 'model') continue;
      const values = selectValues(option);
      offered.push(...values.map((v) => v.value));
      const match = values.find((v) => same(wanted, v.value) || same(wanted, v.name));
      if (match) {
        if (option.currentValue !== match.value)
          await agent.setConfigOption(sessionId, option.id, match.value);
        return;
      }
    }
    const modes = state.modes?.availableModes ?? [];
    offered.push(...modes.map((m) => m.id));
    const mode = modes.find((m) => same(wanted, m.id) || same(wanted, m.name));
    if (mode) {
      if (state.modes?.currentModeId !== mode.id) await agent.setMode(sessionId, mode.id);
      return;
    }
    throw new ProviderError(
      'config-invalid',
      `The ACP agent ${this.#config.command} offers no model or agent named ${JSON.stringify(wanted)}${
        offered.length ? `; it offers: ${offered.join(', ')}` : ''
      } (or use "model": "default" for its own choice)`,
      { field: 'model', vendor: 'acp' },
    );
  }
}

function selectValues(option: SessionConfigOption & { type: 'select' }): SessionConfigSelectOption[] {
  return option.options.flatMap((entry) => ('group' in entry ? entry.options : [entry]));
}
