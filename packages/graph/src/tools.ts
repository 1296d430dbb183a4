// `@birdie/graph/tools`: one skill tool, built and run exactly as the agent does it, without loading LangGraph (for
// `birdie tool` and other callers that run a tool directly).
export { checkToolArgs } from './json-args.js';
export { TOOL_LIMITS, type ToolLimits } from './limits.js';
export { createSkillTool, describeToolError } from './skill-tool.js';
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
