export { type CreateAgentOptions, createAgent } from './agent.js';
export type { ModelForResult, ModelTuning, ResolvedModel } from './agents.js';
export { CLAUDE_CODE_TOOLS, mapAllowedTools } from './allowed-tools.js';
export {
  type ApprovalPattern,
  type ApprovalRule,
  ApprovalRuleError,
  type ArgumentConstraint,
  type CommandWordPattern,
  approvalPatternProblem,
  isApprovalRuleError,
  parseApprovalPattern,
  type RuleEffect,
  type RuleSource,
} from './approval-pattern.js';
export { FIND_TOOLS, SWITCH_MODEL } from './builtin-names.js';
export { matchCommandWords, suggestCommandPattern } from './command-pattern.js';
export { SUMMARY_HEADER } from './compaction-summary.js';
export { contextWindow } from './context-window.js';
export { AgentError, type AgentErrorCode, isAgentError } from './errors.js';
export { checkToolArgs } from './json-args.js';
export { TOOL_LIMITS, type ToolLimits } from './limits.js';
export {
  CLIENT_CAPABILITIES as MCP_CLIENT_CAPABILITIES,
  type McpElicitationRequest,
  type McpElicitationResult,
  type McpNotice,
  type McpRequestInfo,
  type McpSamplingApproval,
  type McpSamplingRequest,
  type McpSamplingResult,
  type McpScope,
  type McpServerRequests,
  type McpTurnHandlers,
} from './mcp-connection.js';
export {
  type McpCallOptions,
  McpManager,
  type McpManagerOptions,
  type McpResourceList,
  type McpResourceUpdate,
  type McpServerTool,
  type McpServerTools,
} from './mcp-manager.js';
export type {
  McpContentBlock,
  McpLoggingLevel,
  McpPrompt,
  McpPromptResult,
  McpResource,
  McpResourceContent,
  McpResourceContents,
  McpResourceTemplate,
  McpRole,
  McpSamplingContent,
  McpSamplingMessage,
  McpServerCapabilities,
} from './mcp-protocol.js';
export { isMcpSamplingRefused, McpSamplingRefused } from './mcp-sampling.js';
export {
  type McpAttachedResource,
  type McpPromptArgument,
  type McpPromptInfo,
  type McpServerInfo,
  McpSession,
  promptMessagesText,
} from './mcp-session.js';
export { isMcpToolError, McpToolError } from './mcp-tool.js';
export { type FindMemoryFilesOptions, findMemoryFiles } from './memory-files.js';
export { MODEL_CHANNEL, type ModelApprovalAsk, type ModelChannel } from './model-channel.js';
export { DEFAULT_CONTEXT_WINDOW, type ModelLimits, modelLimits } from './model-limits.js';
export {
  FAILED_TOOL_RESULT,
  FINISHED_TOOL_RESULT,
  NOT_STARTED_TOOL_RESULT,
  repairDanglingToolCalls,
  STARTED_TOOL_RESULT,
  UNANSWERED_APPROVAL_RESULT,
  UNKNOWN_TOOL_RESULT,
} from './repair.js';
export { inapplicableRuleReason } from './rule-applicability.js';
export { StopReason } from './stop-reason.js';
export {
  compileRules,
  describeMiss,
  describeRule,
  type RuleCall,
  type RuleDecision,
  type RuleMiss,
  type RuleSet,
} from './rule-set.js';
export { createSkillTool, describeToolError, type SkillToolOptions } from './skill-tool.js';
export { AgentState } from './state.js';
export { childThreadId } from './subagents.js';
export { buildSystemPrompt, type SystemPromptInput } from './system-prompt.js';
export {
  CHARS_ESTIMATOR,
  MESSAGE_OVERHEAD_TOKENS,
  TOKEN_MARGINS,
  type TokenEstimator,
  tokenEstimator,
} from './tokens.js';
export type {
  ApprovalReason,
  BuildResult,
  DeclaredTool,
  ToolInvocation,
  ToolKind,
  ToolResult,
  ToolRunContext,
} from './tool.js';
export { DEFAULT_TOOL_BUDGET, type ToolBudget } from './tool-selection.js';
export type {
  Agent,
  AgentEvent,
  AgentOptions,
  AgentPolicy,
  AgentRegistry,
  AgentRegistrySnapshot,
  AgentSpec,
  AgentStateView,
  ApprovalDecision,
  ApprovalMode,
  ApprovalRequest,
  ArchiveRecord,
  ChangePreview,
  CompactionEvent,
  CompactionRecord,
  CompactionResult,
  CompactOptions,
  DoneStatus,
  GetStateOptions,
  InvokeResult,
  LongTermMemory,
  MemoryFile,
  MemoryItem,
  MemoryRecord,
  ModelApprovalEvent,
  ModelToolEvent,
  NewTaskRequest,
  PlannedChange,
  ResumeOptions,
  RunError,
  SessionApproval,
  TaskBook,
  TaskRecord,
  ToolInfo,
  ToolJournal,
  ToolOutputEvent,
  ToolSelectionEvent,
  TurnOptions,
  UsageEvent,
} from './types.js';
