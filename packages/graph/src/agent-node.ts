import type { ToolDefinition } from '@langchain/core/language_models/base';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { type AgentModels, activeAgent, maxTurnsError, modelTurns } from './agents.js';
import { type ContextSettings, fitContext } from './context-fit.js';
import { AgentError } from './errors.js';
import { newId } from './ids.js';
import { resourceContentsText } from './mcp-content.js';
import type { McpManager } from './mcp-manager.js';
import { withUniqueIds } from './message-ids.js';
import { textOf } from './message-text.js';
import { ModelChannelHandler } from './model-channel.js';
import { danglingCalls, repairDanglingToolCalls } from './repair.js';
import type { AgentStateUpdate, AgentStateValue } from './state.js';
import { waitingTasks } from './subagents.js';
import { memoizedSystemPrompt } from './system-prompt.js';
import { withHandler } from './token-stream.js';
import { withToolImages } from './tool-images.js';
import { selectionEvent } from './tool-selection.js';
import type { ToolsetBuilder } from './toolset.js';
import { type CustomEnvelope, emit, emitAgent, turnContext } from './turn-context.js';

export interface AgentNodeSettings extends ContextSettings {
  catalogBudgetChars: number;
  memoryFilesBudgetChars: number;
  instructions?: string;
}

type Bound = Runnable<BaseMessage[], AIMessage>;

function lastHumanText(messages: BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (HumanMessage.isInstance(m)) return textOf(m);
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

/** One binder per model (agents may use different ones), each keeping its last binding. */
function binders() {
  const byModel = new WeakMap<BaseChatModel, ReturnType<typeof binder>>();
  return (model: BaseChatModel) => {
    let bind = byModel.get(model);
    if (!bind) {
      bind = binder(model);
      byModel.set(model, bind);
    }
    return bind;
  };
}

/** One memo per agent, so switching agents (handoffs, subagents on the same graph) does not thrash it. */
function prompts() {
  const byAgent = new Map<string, ReturnType<typeof memoizedSystemPrompt>>();
  return (agent: string) => {
    let memo = byAgent.get(agent);
    if (!memo) {
      if (byAgent.size > 64) byAgent.clear();
      memo = memoizedSystemPrompt();
      byAgent.set(agent, memo);
    }
    return memo;
  };
}

/**
 * One message with the fresh contents of the session's subscribed resources that changed (`notifications/resources/
 * updated`), or a note saying one changed when it cannot be read now.
 */
async function freshResources(
  mcp: McpManager,
  updates: ReturnType<McpManager['takeUpdates']>,
  signal?: AbortSignal,
): Promise<HumanMessage[]> {
  const blocks = await Promise.all(
    updates.map(async ({ skill, uri }) => {
      try {
        const result = await mcp.readResource(skill, uri, signal);
        const text = result.contents
          .map((c) => resourceContentsText(c as Record<string, unknown>))
          .join('\n');
        return `<mcp-resource server="${skill}" uri="${uri}" updated="true">\n${text}\n</mcp-resource>`;
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return `[the MCP resource ${skill}:${uri} changed, but it could not be read again: ${why}]`;
      }
    }),
  );
  const text = `[MCP resources attached earlier changed; their current content:]\n${blocks.join('\n')}`;
  return [new HumanMessage({ id: newId('human'), content: text })];
}

export function createAgentNode(models: AgentModels, builder: ToolsetBuilder, settings: AgentNodeSettings) {
  const binderFor = binders();
  const promptFor = prompts();
  return async (state: AgentStateValue, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const context = turnContext(config);
    const agent = activeAgent(state.sender, context.snapshot);
    emitAgent(config, agent.name);
    const spec = agent.spec;
    if (spec?.timeout) context.deadline?.arm(spec.timeout, agent.name as string);
    if (spec?.maxTurns !== undefined && modelTurns(state.messages) >= spec.maxTurns)
      throw maxTurnsError(agent, spec.maxTurns);
    // Subagents that still wait (the user sent a message instead of deciding) are abandoned like any open call.
    const dangling = danglingCalls(state.messages);
    // Calls cut off by a crash or a cancel: the journal tells the ones that started from the ones that never did.
    const journal = dangling.length > 0 ? context.journal : undefined;
    // Asked only when there is something to ask about: a turn without cut-off calls awaits nothing here.
    const [started, finished] = journal
      ? await Promise.all([journal.startedAmong(dangling), journal.finishedAmong?.(dangling)])
      : [undefined, undefined];
    const repaired = repairDanglingToolCalls(state.messages, started, finished, context.unansweredApprovals);
    // Resources the session attached that changed since: their fresh content goes with this call (and stays).
    const updates = context.path.length === 0 ? builder.mcp.takeUpdates(context.policyKey) : [];
    const fresh = updates.length > 0 ? await freshResources(builder.mcp, updates, context.signal) : [];
    const repair = {
      messages: [...repaired.messages, ...fresh],
      update: [...repaired.update, ...fresh],
    };
    // The servers' roots are the folder this turn's tools work in (the workspace under `serve`).
    const toolset = await builder.build(
      context.policyKey,
      context.snapshot,
      spec ? { spec, loaded: state.loadedSkills } : undefined,
      { cwd: context.cwd },
    );
    for (const error of toolset.errors)
      emit(config, { type: 'error', error: { code: error.code, message: error.message } });
    const selection = builder.binding.select(toolset, {
      snapshot: context.snapshot,
      spec,
      pinned: context.pinnedTools,
      foundTools: state.foundTools,
      messages: repair.messages,
    });
    if (selection.limited) emit(config, selectionEvent(selection));

    // Triggers match what the user typed, not a resource update.
    const human = lastHumanText(repaired.messages);
    const triggered = human
      ? context.snapshot.matchTriggers(
          human,
          toolset.allowed.map((s) => s.name),
        )
      : [];
    const system = promptFor(agent.name ?? '')({
      ...(settings.instructions !== undefined ? { instructions: settings.instructions } : {}),
      ...(spec ? { agentBody: spec.body } : {}),
      ...(context.memoryFiles.length > 0
        ? { memoryFiles: context.memoryFiles, memoryFilesBudgetChars: settings.memoryFilesBudgetChars }
        : {}),
      ...(toolset.progressive ? { progressive: true } : {}),
      allowed: toolset.allowed,
      triggered,
      memory: context.memory,
      catalogBudgetChars: settings.catalogBudgetChars,
      canLoadSkills: toolset.knowledge.length > 0,
    });
    const routed = await models.forCall(agent, repair.messages, {
      ...(context.model ? { turn: context.model } : {}),
      session: context.path.length === 0,
    });
    const definitions = selection.tools.map((t) => t.definition);
    const {
      messages: sent,
      tokens,
      window,
      compacted,
    } = await fitContext({
      state,
      messages: repair.messages,
      routed,
      models,
      system,
      definitions,
      settings,
      config,
      describeSkill: (name) => context.snapshot.getSkill(name)?.description,
    });
    const bound = binderFor(routed.model)(definitions);
    let response: AIMessage;
    const partial = context.partialAnswer;
    if (partial) partial.text = '';
    // One handler rides along with the call: it forwards the tokens, and it is the channel that only a model running
    // its own agent looks for (see model-channel.ts). One, not two: each handler costs every callback of the call.
    const handler = new ModelChannelHandler(
      {
        config,
        threadId: context.threadId,
        cwd: context.cwd,
        approval: context.approval,
        ...(context.signal ? { signal: context.signal } : {}),
      },
      (text) => {
        if (partial) partial.text += text;
        emit(config, { type: 'token', text });
      },
    );
    try {
      const seesImages = routed.model.profile?.imageInputs === true;
      response = await bound.invoke([new SystemMessage(system), ...withToolImages(sent, seesImages)], {
        ...config,
        callbacks: withHandler(config.callbacks, handler),
      });
    } catch (cause) {
      if (config.signal?.aborted) throw cause;
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new AgentError('model-error', `The model call failed: ${detail}`, { cause });
    }
    if (partial) partial.text = '';
    if (!AIMessage.isInstance(response))
      response = new AIMessage({ content: (response as BaseMessage).content });
    // A model without a streaming path still delivers its text as one token, so renderers need one code path.
    if (!handler.streamed) {
      const text = textOf(response);
      if (text) emit(config, { type: 'token', text });
    }
    // The usage event of this reply names the model and what was sent (see events.ts).
    config.writer?.({
      birdieCall: { model: routed.name, context: { tokens, window } },
    } satisfies CustomEnvelope);
    return {
      messages: [...repair.update, withUniqueIds(response, repair.messages)],
      ...(compacted ? { compactions: [compacted] } : {}),
    };
  };
}

/** After the tools: subagents that wait for approvals are finished first, then the model goes on. */
export function routeAfterTools(state: AgentStateValue): 'agent' | 'subagents' {
  return waitingTasks(state.messages).length > 0 ? 'subagents' : 'agent';
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
