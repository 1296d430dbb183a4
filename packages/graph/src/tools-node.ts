import { AIMessage } from '@langchain/core/messages';
import { interrupt, type LangGraphRunnableConfig } from '@langchain/langgraph';
import type { ApprovalInterrupt, BoundDecisions } from './approvals.js';
import type { AgentStateUpdate, AgentStateValue } from './state.js';
import { confirmCalls } from './tool-confirm.js';
import { executeCalls } from './tool-execute.js';
import { planCalls } from './tool-plan.js';
import type { ToolsetBuilder } from './toolset.js';
import { turnContext } from './turn-context.js';
import type { AgentPolicy } from './types.js';

export interface ToolsNodeSettings {
  contextMessages: number;
}

/** Runs the last AIMessage's tool calls in three steps: plan (policy, loop guard, build), confirm, execute. */
export function createToolsNode(builder: ToolsetBuilder, policy: AgentPolicy, settings: ToolsNodeSettings) {
  return async (state: AgentStateValue, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const context = turnContext(config);
    const aiIndex = state.messages.length - 1;
    const ai = state.messages[aiIndex];
    if (!ai || !AIMessage.isInstance(ai)) return {};
    const toolset = await builder.build(context.threadId, context.snapshot);
    const plan = planCalls({
      ai,
      messages: state.messages,
      aiIndex,
      toolset,
      policy,
      threadId: context.threadId,
      snapshot: context.snapshot,
      approval: context.approval,
    });
    // Nothing has run yet: on resume this node starts again from the top and each `interrupt` returns its answer.
    const decisions = confirmCalls(plan, context.decisions, (requests) =>
      interrupt<ApprovalInterrupt, BoundDecisions>({ kind: 'birdie/approval', requests }),
    );
    const { messages, loaded } = await executeCalls({
      plan,
      decisions,
      config,
      journal: context.journal,
      context: {
        cwd: context.cwd,
        env: context.toolEnv,
        messages: state.messages,
        loadedSkills: state.loadedSkills,
        contextMessages: settings.contextMessages,
        ...(context.signal ? { signal: context.signal } : {}),
        ...(context.files ? { files: context.files } : {}),
      },
    });
    return loaded.length > 0 ? { messages, loadedSkills: loaded } : { messages };
  };
}
