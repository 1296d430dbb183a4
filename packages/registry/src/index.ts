export type { McpServerConfig, Skill, SkillTool } from '@birdie/skill-parser';
export { RULES as REGISTRY_RULES, type RegistryRuleId } from './diagnostics.js';
export { type DefaultDirectoryOptions, defaultSkillDirectories } from './directories.js';
export { RegistryError, type RegistryErrorCode } from './errors.js';
export { type PolicyState, type SessionGrants, SkillPolicy, type SkillPolicyOptions } from './policy.js';
export { loadRegistry } from './registry.js';
export { snapshotFromSkills } from './snapshot.js';
export type {
  LoadedRegistry,
  LoadRegistryOptions,
  McpServerEntry,
  Registry,
  RegistrySnapshot,
  RegistryWatcher,
  SkillDirectory,
  SkillLayer,
  TaggedToolEntry,
  ToolEntry,
  TriggerOptions,
  WatchOptions,
} from './types.js';
