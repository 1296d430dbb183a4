import type { ToolDefinition } from '@langchain/core/language_models/base';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { contextWindow } from './context-window.js';
import { AgentError } from './errors.js';
import { withUniqueIds } from './message-ids.js';
import { danglingCalls, repairDanglingToolCalls } from './repair.js';
import type { AgentStateUpdate, AgentStateValue } from './state.js';
import { memoizedSystemPrompt } from './system-prompt.js';
import { TokenForwarder, withHandler } from './token-stream.js';
import type { ToolsetBuilder } from './toolset.js';
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

/**
 * Keeps the last binding while the tool list is the same objects, so a steady session does not re-bind per call.
 * The model is bound to definitions (name, description, JSON Schema) only: nothing it is given can run.
 */
function binder(model: BaseChatModel) {
  let last: { tools: ToolDefinition[]; bound: Bound } | undefined;
  return (tools: ToolDefinition[]): Bound => {
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

export function createAgentNode(model: BaseChatModel, builder: ToolsetBuilder, settings: AgentNodeSettings) {
  const bind = binder(model);
  const buildSystemPrompt = memoizedSystemPrompt();
  return async (state: AgentStateValue, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const context = turnContext(config);
    const dangling = danglingCalls(state.messages);
    // Calls cut off by a crash or a cancel: the journal tells the ones that started from the ones that never did.
    const journal = dangling.length > 0 ? context.journal : undefined;
    const [started, finished] = await Promise.all([
      journal?.startedAmong(dangling),
      journal?.finishedAmong?.(dangling),
    ]);
    const repair = repairDanglingToolCalls(state.messages, started, finished);
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
    const bound = bind(toolset.tools.map((t) => t.definition));
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
    return { messages: [...repair.update, withUniqueIds(response, repair.messages)] };
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
