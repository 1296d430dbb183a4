export { createMessage, SOURCE } from './diagnostics.js';
export {
  type DiscoverResult,
  discoverSkills,
  loadSkillFile,
  MAX_RESOURCE_DEPTH,
  MAX_RESOURCES,
  SKILL_FILE_NAMES,
} from './discover.js';
export { resolveArg } from './mcp.js';
export {
  MAX_SKILL_FILE_BYTES,
  type ParseSkillOptions,
  type ParseSkillResult,
  parseSkill,
} from './parse-skill.js';
export { type RuleId, type RuleInfo, RULES, type Severity } from './rules.js';
export { ENTRYPOINT_SHAPE, TOOL_NAME } from './tool-block.js';
export type {
  JsonSchema,
  JsonSchemaObject,
  McpRemoteServer,
  McpServerConfig,
  McpStdioServer,
  Skill,
  SkillKind,
  SkillTool,
  ToolApproval,
} from './types.js';
