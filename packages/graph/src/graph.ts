import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type BaseCheckpointSaver, END, START, StateGraph } from '@langchain/langgraph';
import { type AgentNodeSettings, createAgentNode, routeAfterAgent } from './agent-node.js';
import { AgentState } from './state.js';
import { createToolsNode, type ToolsNodeSettings } from './tools-node.js';
import type { ToolsetBuilder } from './toolset.js';
import { TurnContextSchema } from './turn-context.js';
import type { AgentPolicy } from './types.js';

export interface GraphDeps {
  model: BaseChatModel;
  policy: AgentPolicy;
  builder: ToolsetBuilder;
  checkpointer: BaseCheckpointSaver;
  settings: AgentNodeSettings & ToolsNodeSettings;
}

/**
 * `START → agent`, `agent → tools` while the last AIMessage has tool calls (else `END`), `tools → agent`.
 */
export function buildAgentGraph(deps: GraphDeps) {
  return new StateGraph(AgentState, TurnContextSchema)
    .addNode('agent', createAgentNode(deps.model, deps.builder, deps.settings))
    .addNode('tools', createToolsNode(deps.builder, deps.policy, deps.settings))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', routeAfterAgent, ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer: deps.checkpointer });
}

export type AgentGraph = ReturnType<typeof buildAgentGraph>;
