import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { argsDigest } from './digest.js';
import { TokenForwarder } from './token-stream.js';
import { emit } from './turn-context.js';
import type { ApprovalDecision, ApprovalMode, ModelToolEvent } from './types.js';

/**
 * The name under which the agent node adds its model channel to the callback handlers of each model call. A chat
 * model that runs an agent of its own (the `acp` vendor of `@birdie/providers`) finds it among its run manager's
 * `handlers`; every other model never looks, and nothing changes for it.
 */
export const MODEL_CHANNEL = 'birdie-model-channel';

/** What the model's own agent wants to do and asks the user about. */
export interface ModelApprovalAsk {
  /** The agent's id for the call. */
  id: string;
  tool: string;
  args?: Record<string, unknown>;
  /** One line for the prompt. */
  description: string;
}

/**
 * The one way a model reaches the agent that runs it, during one call: which thread and folder the call is for,
 * events to show (its agent's tool calls), and approvals to ask (answered by the application through a
 * `model-approval` event). A model never prompts: it asks here and waits.
 */
export interface ModelChannel {
  readonly threadId: string;
  /** The turn's working directory. */
  readonly cwd: string;
  toolActivity(activity: Omit<ModelToolEvent, 'type'>): void;
  /** Resolves with the application's decision; `approve` at once in mode `never`, `reject` once the turn is aborted. */
  approve(ask: ModelApprovalAsk): Promise<ApprovalDecision>;
}

interface ChannelInit {
  config: LangGraphRunnableConfig;
  threadId: string;
  cwd: string;
  approval: ApprovalMode;
  signal?: AbortSignal;
}

/**
 * The model channel as a LangChain callback handler. It is also the call's token forwarder, so the agent node adds one
 * handler to a model call, not two (each handler costs every callback of the call): a model that runs no agent of its
 * own only has its tokens forwarded.
 */
export class ModelChannelHandler extends TokenForwarder implements ModelChannel {
  override name = MODEL_CHANNEL;
  readonly threadId: string;
  readonly cwd: string;
  readonly #init: ChannelInit;

  constructor(init: ChannelInit, onToken: (text: string) => void) {
    super(onToken);
    this.#init = init;
    this.threadId = init.threadId;
    this.cwd = init.cwd;
  }

  toolActivity(activity: Omit<ModelToolEvent, 'type'>): void {
    emit(this.#init.config, { ...activity, type: 'model-tool' });
  }

  approve(ask: ModelApprovalAsk): Promise<ApprovalDecision> {
    const { approval, signal, config } = this.#init;
    if (approval === 'never') return Promise.resolve({ type: 'approve' });
    const cancelled: ApprovalDecision = { type: 'reject', message: 'The turn was cancelled.' };
    if (signal?.aborted) return Promise.resolve(cancelled);
    return new Promise((resolve) => {
      let answered = false;
      const finish = (decision: ApprovalDecision) => {
        if (answered) return;
        answered = true;
        signal?.removeEventListener('abort', onAbort);
        resolve(decision);
      };
      const onAbort = () => finish(cancelled);
      signal?.addEventListener('abort', onAbort, { once: true });
      const args = { ...ask.args };
      emit(config, {
        type: 'model-approval',
        request: {
          id: ask.id,
          digest: argsDigest(ask.tool, args),
          tool: ask.tool,
          args,
          description: ask.description,
          reason: 'model-agent',
        },
        respond: finish,
      });
    });
  }
}
