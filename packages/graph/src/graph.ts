import { type BaseCheckpointSaver, END, START, StateGraph } from '@langchain/langgraph';
import { type AgentNodeSettings, createAgentNode, routeAfterAgent, routeAfterTools } from './agent-node.js';
import type { AgentModels } from './agents.js';
import { AgentState } from './state.js';
import type { SubagentRuns } from './subagents.js';
import { createSubagentsNode } from './subagents-node.js';
import { createToolsNode, type ToolsNodeSettings } from './tools-node.js';
import type { ToolsetBuilder } from './toolset.js';
import type { AgentPolicy } from './types.js';

export interface GraphDeps {
  models: AgentModels;
  policy: AgentPolicy;
  builder: ToolsetBuilder;
  checkpointer: BaseCheckpointSaver;
  settings: AgentNodeSettings & ToolsNodeSettings;
  subagents: SubagentRuns;
}

/**
 * `START → agent`, `agent → tools` while the last AIMessage has tool calls (else `END`), `tools → agent`, or
 * `tools → subagents → agent` when a `task` call's subagent stopped for approvals.
 */
export function buildAgentGraph(deps: GraphDeps) {
  return new StateGraph(AgentState)
    .addNode('agent', createAgentNode(deps.models, deps.builder, deps.settings))
    .addNode('tools', createToolsNode(deps.builder, deps.policy, deps.settings, deps.subagents, deps.models))
    .addNode('subagents', createSubagentsNode(deps.subagents))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', routeAfterAgent, ['tools', END])
    .addConditionalEdges('tools', routeAfterTools, ['agent', 'subagents'])
    .addEdge('subagents', 'agent')
    .compile({ checkpointer: deps.checkpointer });
}

export type AgentGraph = ReturnType<typeof buildAgentGraph>;
