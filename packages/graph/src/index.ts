export { createAgent, type CreateAgentOptions } from './agent.js';
export { AgentError, type AgentErrorCode, isAgentError } from './errors.js';
export { McpManager, type McpManagerOptions, type McpServerTools } from './mcp-manager.js';
export { buildSystemPrompt, type SystemPromptInput } from './system-prompt.js';
export { repairDanglingToolCalls, INTERRUPTED_TOOL_RESULT } from './repair.js';
export { contextWindow } from './context-window.js';
export { AgentState } from './state.js';
export type {
  Agent,
  AgentEvent,
  AgentOptions,
  AgentPolicy,
  AgentRegistry,
  AgentRegistrySnapshot,
  AgentStateView,
  ApprovalDecision,
  ApprovalMode,
  ApprovalRequest,
  DoneStatus,
  MemoryItem,
  ResumeOptions,
  ToolInfo,
  TurnOptions,
} from './types.js';
