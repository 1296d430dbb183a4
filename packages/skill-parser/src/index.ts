export {
  cronProblem,
  knownTimeZone,
  MIN_EVERY_SECONDS,
  parseDuration,
  watchProblem,
} from './agent-triggers.js';
export { createMessage, SOURCE } from './diagnostics.js';
export {
  type DiscoverResult,
  discoverSkills,
  type LoadOptions,
  loadSkillFile,
  SKILL_FILE_NAMES,
} from './discover.js';
export { type DiscoverAgentsResult, discoverAgents, loadAgentFile } from './discover-agents.js';
export {
  MAX_RESOURCE_DEPTH,
  MAX_RESOURCES,
  MAX_SETEXT_HEADINGS,
  MAX_SKILL_FILE_BYTES,
  MAX_YAML_ALIAS_COUNT,
  MAX_YAML_DEPTH,
} from './limits.js';
export { resolveArg } from './mcp.js';
export { MODEL_TIER, MODEL_TIERS, MODEL_VENDORS, modelProblem } from './model.js';
export { type ParseAgentOptions, type ParseAgentResult, parseAgent } from './parse-agent.js';
export { type ParseSkillOptions, type ParseSkillResult, parseSkill } from './parse-skill.js';
export { RULES, type RuleId, type RuleInfo, type Severity, STANDARD_RULES } from './rules.js';
export { type SchemaProblem, schemaProblems } from './schema-checks.js';
export type { SkillCache } from './skill-cache.js';
export { ENTRYPOINT_SHAPE, TOOL_NAME } from './tool-block.js';
export type {
  AgentDefinition,
  AgentPositions,
  AgentTriggers,
  JsonSchema,
  JsonSchemaObject,
  McpRemoteServer,
  McpServerConfig,
  McpStdioServer,
  Skill,
  SkillKind,
  SkillTool,
  SourcePoint,
  ToolApproval,
} from './types.js';
