import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { contextWindow } from './context-window.js';
import { AgentError } from './errors.js';
import { newId } from './ids.js';
import { repairDanglingToolCalls } from './repair.js';
import type { AgentStateUpdate, AgentStateValue } from './state.js';
import { memoizedSystemPrompt } from './system-prompt.js';
import type { ToolsetBuilder } from './toolset.js';
import { TokenForwarder, withHandler } from './token-stream.js';
import { emit, turnContext } from './turn-context.js';

export interface AgentNodeSettings {
  contextMessages: number;
  catalogBudgetChars: number;
  instructions?: string;
}

type Bound = Runnable<BaseMessage[], AIMessage>;

function lastHumanText(messages: BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (HumanMessage.isInstance(m)) return m.text;
  }
  return '';
}

/** Keeps the last binding while the tool list is the same objects, so a steady session does not re-bind per call. */
function binder(model: BaseChatModel) {
  let last: { tools: StructuredToolInterface[]; bound: Bound } | undefined;
  return (tools: StructuredToolInterface[]): Bound => {
    if (tools.length === 0) return model as unknown as Bound;
    if (last && last.tools.length === tools.length && last.tools.every((t, i) => t === tools[i]))
      return last.bound;
    if (typeof model.bindTools !== 'function') {
      throw new AgentError('model-error', 'This chat model cannot call tools (it has no bindTools).');
    }
    const bound = model.bindTools(tools) as unknown as Bound;
    last = { tools, bound };
    return bound;
  };
}

/**
 * Makes ids unique in the thread: the checkpoint's message reducer replaces messages that share an id, and approval
 * decisions are keyed by tool call id — a call that reused an earlier (or a sibling's) id would inherit its decision.
 * Some OpenAI-compatible servers number calls per response (`call_0`, …), so repeats do happen.
 */
function normaliseIds(message: AIMessage, history: BaseMessage[]): AIMessage {
  const taken = new Set(history.map((m) => m.id));
  if (!message.id || taken.has(message.id)) message.id = newId('ai');
  const calls = new Set<string>();
  for (const m of history) {
    if (AIMessage.isInstance(m)) for (const call of m.tool_calls ?? []) if (call.id) calls.add(call.id);
    if (ToolMessage.isInstance(m)) calls.add(m.tool_call_id);
  }
  let renamed = false;
  for (const call of message.tool_calls ?? []) {
    if (!call.id || calls.has(call.id)) {
      renamed ||= Boolean(call.id);
      call.id = newId('call');
    }
    calls.add(call.id);
  }
  // Vendors that also keep calls as content blocks (Anthropic's tool_use), in call order, must see the same ids.
  if (renamed && Array.isArray(message.content)) {
    const blocks = (message.content as Array<{ type?: string; id?: unknown }>).filter(
      (b) => b && (b.type === 'tool_use' || b.type === 'tool_call'),
    );
    const ids = (message.tool_calls ?? []).map((c) => c.id);
    if (blocks.length === ids.length) {
      blocks.forEach((b, k) => {
        b.id = ids[k];
      });
    }
  }
  return message;
}

export function createAgentNode(model: BaseChatModel, builder: ToolsetBuilder, settings: AgentNodeSettings) {
  const bind = binder(model);
  const buildSystemPrompt = memoizedSystemPrompt();
  return async (state: AgentStateValue, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const context = turnContext(config);
    const repair = repairDanglingToolCalls(state.messages);
    const toolset = await builder.build(context.threadId, context.snapshot);
    for (const error of toolset.errors)
      emit(config, { type: 'error', error: { code: error.code, message: error.message } });

    const human = lastHumanText(repair.messages);
    const triggered = human
      ? context.snapshot.matchTriggers(
          human,
          toolset.allowed.map((s) => s.name),
        )
      : [];
    const system = buildSystemPrompt({
      ...(settings.instructions !== undefined ? { instructions: settings.instructions } : {}),
      allowed: toolset.allowed,
      triggered,
      memory: context.memory,
      catalogBudgetChars: settings.catalogBudgetChars,
      canLoadSkills: toolset.knowledge.length > 0,
    });
    const window = contextWindow(repair.messages, settings.contextMessages);
    const bound = bind(toolset.tools.map((t) => t.lc));
    let response: AIMessage;
    const tokens = new TokenForwarder((text) => emit(config, { type: 'token', text }));
    try {
      response = await bound.invoke([new SystemMessage(system), ...window], {
        ...config,
        callbacks: withHandler(config.callbacks, tokens),
      });
    } catch (cause) {
      if (config.signal?.aborted) throw cause;
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new AgentError('model-error', `The model call failed: ${detail}`, { cause });
    }
    if (!AIMessage.isInstance(response))
      response = new AIMessage({ content: (response as BaseMessage).content });
    // A model without a streaming path still delivers its text as one token, so renderers need one code path.
    if (!tokens.streamed && response.text) emit(config, { type: 'token', text: response.text });
    return { messages: [...repair.update, normaliseIds(response, repair.messages)] };
  };
}

export function routeAfterAgent(state: AgentStateValue): 'tools' | '__end__' {
  const last = state.messages.at(-1);
  if (
    last &&
    AIMessage.isInstance(last) &&
    ((last.tool_calls?.length ?? 0) > 0 || (last.invalid_tool_calls?.length ?? 0) > 0)
  ) {
    return 'tools';
  }
  return '__end__';
}
