// `@birdie/graph/tools`: one skill tool, built and run exactly as the agent does it, without loading LangGraph (for
// `birdie tool` and other callers that run a tool directly), and the agent's toolset with its MCP servers' tools
// (for `birdie mcp`, which passes them on).

export { approvalSource, approvedForSession } from './approval-source.js';
export { type CallApproval, type CallApprovalInput, callApproval } from './call-approval.js';
export { checkToolArgs } from './json-args.js';
export { TOOL_LIMITS, type ToolLimits } from './limits.js';
export { McpManager, type McpManagerOptions } from './mcp-manager.js';
export { readableReferenceFiles, readReferenceFile } from './reference-file.js';
export { approvalPatternProblem, isApprovalRuleError, parseApprovalPattern } from './approval-pattern.js';
export { compileRules, describeMiss, describeRule, type RuleSet } from './rule-set.js';
export { createSkillTool, describeToolError, type SkillToolOptions } from './skill-tool.js';
export type {
  ApprovalReason,
  BuildResult,
  DeclaredTool,
  ToolInvocation,
  ToolKind,
  ToolResult,
  ToolRunContext,
} from './tool.js';
export { defaultApproval } from './tool.js';
export { type Toolset, ToolsetBuilder, type ToolsetPlace } from './toolset.js';
export type { AgentPolicy, SessionApproval } from './types.js';
