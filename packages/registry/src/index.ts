export type { AgentDefinition, McpServerConfig, Skill, SkillTool } from '@birdie/skill-parser';
export { type AgentCheckContext, checkAgents } from './agent-checks.js';
export { type RegistryRuleId, RULES as REGISTRY_RULES } from './diagnostics.js';
export {
  type DefaultAgentDirectoryOptions,
  type DefaultDirectoryOptions,
  defaultAgentDirectories,
  defaultSkillDirectories,
} from './directories.js';
export { checkSkillTools } from './entrypoint-checks.js';
export { isRegistryError, RegistryError, type RegistryErrorCode } from './errors.js';
export {
  type GrantsStore,
  type PolicyCeiling,
  type PolicyState,
  type SessionGrants,
  SkillPolicy,
  type SkillPolicyOptions,
  type StaleGrant,
  skillIdentity,
} from './policy.js';
export { rawToolsNamedOnly } from './raw-command-rules.js';
export { loadRegistry } from './registry.js';
export { snapshotFromSkills } from './snapshot.js';
export { declarationsDigest, TRUST_DIGEST_VERSION } from './trust.js';
export type {
  DeclaredAgent,
  DeclaredSkill,
  LoadedRegistry,
  LoadRegistryOptions,
  McpServerEntry,
  MemoryFileInfo,
  Registry,
  RegistrySnapshot,
  RegistryWatcher,
  RunFile,
  SkillDirectory,
  SkillLayer,
  TaggedToolEntry,
  ToolEntry,
  TriggerOptions,
  TrustDecision,
  WatchOptions,
  WorkspaceDeclarations,
} from './types.js';
export {
  DEFAULT_MEMORY_FILE_NAMES,
  MEMORY_FILE_NAME,
  memoryFileNameProblem,
  memoryFilePaths,
  memoryFilePathsSync,
  PROJECT_COMMANDS_DIR,
  PROJECT_SETTINGS_FILE,
} from './workspace-files.js';
