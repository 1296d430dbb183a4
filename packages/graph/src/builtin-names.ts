/** Names of the tools the agent itself provides (a skill tool of the same name cannot shadow them). */
export const LOAD_SKILL = 'load_skill';
export const READ_REFERENCE = 'read_reference';
export const TASK = 'task';
export const HANDOFF = 'handoff';
export const SWITCH_MODEL = 'switch_model';
export const FIND_TOOLS = 'find_tools';
export const MCP_READ_RESOURCE = 'mcp_read_resource';

/** Every name above: a skill tool of one of these names is never part of a toolset. */
export const BUILTIN_TOOL_NAMES: ReadonlySet<string> = new Set([
  LOAD_SKILL,
  READ_REFERENCE,
  TASK,
  HANDOFF,
  SWITCH_MODEL,
  FIND_TOOLS,
  MCP_READ_RESOURCE,
]);
