export type { CredentialCheck, CredentialCheckInput } from './check-credentials.js';
export { checkCredentials } from './check-credentials.js';
export type { ConfigFile, ConfigFileOptions, ConfigSection } from './config-file.js';
export { CONFIG_SECTIONS, parseConfigFile, readConfigFile } from './config-file.js';
export type {
  ConfigField,
  ConfigLayer,
  ModelTier,
  ProgramField,
  ProviderConfig,
  TierLayer,
} from './config-schema.js';
export {
  CONFIG_FIELDS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  isModelTier,
  MODEL_TIERS,
  PROGRAM_FIELDS,
} from './config-schema.js';
export type { ContextWindow } from './context-window.js';
export { contextWindowOf, DEFAULT_CONTEXT_WINDOWS, probeContextWindow } from './context-window.js';
export type { CreateChatModelOptions } from './create-chat-model.js';
export { closeChatModel, createChatModel, isChatModel } from './create-chat-model.js';
export type { ProviderDescription } from './describe.js';
export { describeProvider } from './describe.js';
export type { ProviderErrorCode, ProviderErrorDetails } from './errors.js';
export { ProviderError } from './errors.js';
export type { JsonPath, JsonPlace } from './json-paths.js';
export type { IgnoredValue, ResolvedProviderConfig, ResolveProviderConfigInput } from './resolve-config.js';
export { DEFAULT_VENDOR, ENV_VARS, resolveProviderConfig } from './resolve-config.js';
export type { RetryEvent } from './retry.js';
export { loadScript } from './scripted/load-script.js';
export type { Script, ScriptedReply, ScriptedToolCall } from './scripted/script.js';
export { parseScript } from './scripted/script.js';
export type { ScriptedCall, ScriptedCallOptions, ScriptedModelOptions } from './scripted/scripted-model.js';
export { createScriptedModel, ScriptedChatModel } from './scripted/scripted-model.js';
export type { Vendor, VendorInfo } from './vendors.js';
export { isVendor, VENDOR_NAMES, VENDORS } from './vendors.js';
