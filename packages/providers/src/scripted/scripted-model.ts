import { randomUUID } from 'node:crypto';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage, type UsageMetadata } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';
import { ProviderError } from '../errors.js';
import { toProviderError } from '../http-errors.js';
import { isRetryableStatus, type RetryEvent, retryDelay, sleep } from '../retry.js';
import { parseScript, type Script, type ScriptedReply } from './script.js';
import { estimateInputTokens, estimateTokens, messageText } from './usage.js';

export interface ScriptedModelOptions extends BaseChatModelParams {
  /** Model name reported in response metadata (default `scripted`). */
  model?: string;
  /** Default for replies without `stream` (default: the script's, else true). */
  stream?: boolean;
  /** Retries of simulated 429/5xx replies (default 2), like a real vendor. */
  maxRetries?: number;
  maxRetryDelayMs?: number;
  onRetry?: (event: RetryEvent) => void;
  /** Where the script came from, for error messages. */
  source?: string;
}

/** What the model was asked, one entry per reply consumed (simulated failures included). */
export interface ScriptedCall {
  messages: BaseMessage[];
  /** Names of the tools bound for this call. */
  tools: string[];
  /** Index of the reply used. */
  reply: number;
}

export interface ScriptedCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
}

/**
 * A chat model that answers from a script: text or tool calls, picked by a regular expression on the last human
 * message (first unused match) or else in order (first unused reply without `match`). Streams token by token and
 * reports estimated usage on every message. Replies are shared by every runnable `bindTools` returns.
 */
/** How many calls `ScriptedChatModel.calls` keeps (each holds the messages it was sent). */
export const MAX_RECORDED_CALLS = 1000;
/**
 * How many messages those calls hold together: each call is sent its session's whole history, so a record bounded
 * by calls alone holds more the longer a long-running server's sessions get. The newest call is always kept.
 */
export const MAX_RECORDED_MESSAGES = 20_000;

export class ScriptedChatModel extends BaseChatModel<ScriptedCallOptions, AIMessageChunk> {
  static override lc_name() {
    return 'ScriptedChatModel';
  }

  /**
   * The calls made, oldest first: the newest `MAX_RECORDED_CALLS`, holding at most `MAX_RECORDED_MESSAGES` messages
   * (a long-running `birdie serve` keeps answering).
   */
  readonly calls: ScriptedCall[] = [];
  /** How many messages `calls` holds. */
  private recordedMessages = 0;
  readonly script: Script;
  private readonly used: boolean[];
  private readonly patterns: Array<RegExp | undefined>;
  private readonly settings: ScriptedModelOptions;

  constructor(script: Script | ScriptedReply[], options: ScriptedModelOptions = {}) {
    super(options);
    this.script = parseScript(script, options.source ? `script ${options.source}` : 'script', options.source);
    this.used = this.script.replies.map(() => false);
    this.patterns = this.script.replies.map((reply) =>
      reply.match ? new RegExp(reply.match, 'i') : undefined,
    );
    this.settings = options;
  }

  override _llmType(): string {
    return 'scripted';
  }

  /** Replies not used yet. */
  get remaining(): number {
    return this.used.filter((used) => !used).length;
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<ScriptedCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, ScriptedCallOptions> {
    return this.withConfig({ ...kwargs, tools } as Partial<ScriptedCallOptions>);
  }

  override async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    let message: AIMessageChunk | undefined;
    let usage: UsageMetadata | undefined;
    for await (const chunk of this.replyChunks(messages, options, runManager, false)) {
      const part = chunk.message as AIMessageChunk;
      usage = part.usage_metadata ?? usage;
      message = message ? message.concat(part) : part;
    }
    const final = new AIMessage({
      id: message!.id,
      content: message!.content,
      tool_calls: message!.tool_calls,
      usage_metadata: usage,
      response_metadata: message!.response_metadata,
    });
    return {
      generations: [{ text: typeof final.content === 'string' ? final.content : '', message: final }],
    };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    yield* this.replyChunks(messages, options, runManager, true);
  }

  private async *replyChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager: CallbackManagerForLLMRun | undefined,
    streaming: boolean,
  ): AsyncGenerator<ChatGenerationChunk> {
    const reply = await this.nextReply(messages, options);
    const id = `scripted-${randomUUID()}`;
    const text = reply.text ?? '';
    const toolCalls = (reply.tool_calls ?? []).map((call) => ({
      id: call.id ?? `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      name: call.name,
      args: call.args ?? {},
    }));
    const input = reply.usage?.input_tokens ?? estimateInputTokens(messages);
    const output =
      reply.usage?.output_tokens ??
      estimateTokens(text) +
        toolCalls.reduce((n, call) => n + estimateTokens(call.name + JSON.stringify(call.args)), 0);
    const usage: UsageMetadata = { input_tokens: input, output_tokens: output, total_tokens: input + output };
    const metadata = { model_provider: 'scripted', model_name: this.settings.model ?? 'scripted' };
    const tokenByToken = streaming && (reply.stream ?? this.settings.stream ?? this.script.stream ?? true);
    const pieces = tokenByToken ? (text.match(/\s*\S+\s*|\s+/g) ?? []) : text ? [text] : [];
    for (const piece of pieces) {
      if (reply.token_delay_ms) await sleep(reply.token_delay_ms, options.signal);
      options.signal?.throwIfAborted();
      const chunk = new ChatGenerationChunk({
        text: piece,
        message: new AIMessageChunk({ id, content: piece }),
      });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
    }
    yield new ChatGenerationChunk({
      text: '',
      message: new AIMessageChunk({
        id,
        content: '',
        tool_call_chunks: toolCalls.map((call, index) => ({
          type: 'tool_call_chunk',
          id: call.id,
          name: call.name,
          args: JSON.stringify(call.args),
          index,
        })),
        usage_metadata: usage,
        response_metadata: { ...metadata, finish_reason: toolCalls.length ? 'tool_calls' : 'stop' },
      }),
    });
  }

  /** Picks the reply for this call, playing simulated failures (and their retries) on the way. */
  private record(call: ScriptedCall): void {
    this.calls.push(call);
    this.recordedMessages += call.messages.length;
    let drop = 0;
    let held = this.recordedMessages;
    while (
      drop < this.calls.length - 1 &&
      (this.calls.length - drop > MAX_RECORDED_CALLS || held > MAX_RECORDED_MESSAGES)
    )
      held -= this.calls[drop++]!.messages.length;
    this.calls.splice(0, drop);
    this.recordedMessages = held;
  }

  private async nextReply(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
  ): Promise<ScriptedReply> {
    const maxRetries = this.settings.maxRetries ?? 2;
    for (let attempt = 1; ; attempt++) {
      options.signal?.throwIfAborted();
      const index = this.chooseReply(messages);
      this.used[index] = true;
      this.record({ messages: [...messages], tools: toolNames(options.tools), reply: index });
      const reply = this.script.replies[index]!;
      if (!reply.error) return reply;
      const { status, retry_after } = reply.error;
      const delayMs =
        isRetryableStatus(status) && attempt <= maxRetries
          ? retryDelay(attempt, retry_after === undefined ? undefined : retry_after * 1000, {
              maxRetries,
              baseDelayMs: 0,
              maxDelayMs: this.settings.maxRetryDelayMs,
            })
          : undefined;
      if (delayMs === undefined) {
        const message = reply.error.message ?? `simulated HTTP ${status}`;
        throw toProviderError(Object.assign(new Error(message), { status }), {
          vendor: 'scripted',
          authFix: `simulated by reply ${index + 1} of the ${this.settings.source ? `script ${this.settings.source}` : 'script'}; no key is involved`,
          maxRetries,
        });
      }
      this.settings.onRetry?.({ attempt, status, delayMs });
      await sleep(delayMs, options.signal);
    }
  }

  private chooseReply(messages: BaseMessage[]): number {
    const human = [...messages].reverse().find((message) => message.getType() === 'human');
    const humanText = human ? messageText(human) : '';
    const matched = this.patterns.findIndex(
      (pattern, i) => pattern && !this.used[i] && pattern.test(humanText),
    );
    if (matched !== -1) return matched;
    const next = this.patterns.findIndex((pattern, i) => !pattern && !this.used[i]);
    if (next !== -1) return next;
    const where = this.settings.source ? `Script ${this.settings.source}` : 'The script';
    const left = this.script.replies.filter((_, i) => !this.used[i]).map((reply) => `/${reply.match}/`);
    const quoted = JSON.stringify(humanText.length > 80 ? `${humanText.slice(0, 77)}...` : humanText);
    throw new ProviderError(
      'script-exhausted',
      left.length === 0
        ? `${where} is exhausted: all ${this.used.length} replies were used (last human message: ${quoted})`
        : `${where} has no reply for the last human message ${quoted}: the unused replies need ${left.join(', ')}`,
      { vendor: 'scripted', file: this.settings.source },
    );
  }
}

function toolNames(tools: BindToolsInput[] | undefined): string[] {
  return (tools ?? []).map((tool) => {
    const t = tool as { name?: unknown; function?: { name?: unknown } };
    return String(t.name ?? t.function?.name ?? 'unknown');
  });
}

/** A scripted model from replies in memory (tests, examples); same behaviour as `vendor: "scripted"`. */
export function createScriptedModel(
  script: Script | ScriptedReply[],
  options?: ScriptedModelOptions,
): ScriptedChatModel {
  return new ScriptedChatModel(script, options);
}
