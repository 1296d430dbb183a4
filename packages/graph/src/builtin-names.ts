/** Names of the tools the agent itself provides (a skill tool of the same name cannot shadow them). */
export const LOAD_SKILL = 'load_skill';
export const READ_REFERENCE = 'read_reference';
export const TASK = 'task';
export const HANDOFF = 'handoff';
export const SWITCH_MODEL = 'switch_model';
export const FIND_TOOLS = 'find_tools';
export const MCP_READ_RESOURCE = 'mcp_read_resource';
