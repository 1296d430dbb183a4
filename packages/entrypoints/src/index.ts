export { BUILTIN_ENTRYPOINTS } from './builtin.js';
export type { ArgumentRole, DangerousOption } from './code-taking-argv.js';
export { dangerousArguments, dangerousOption, isDangerousOption, readArgv } from './code-taking-argv.js';
export type { CodeTakingWarning } from './code-taking-commands.js';
export type {
  CodeForm,
  Danger,
  OperandRule,
  OptionEntry,
  OptionValue,
  ProgramEntry,
  SubcommandEntry,
} from './code-taking-programs.js';
export { CODE_TAKING_PROGRAMS, programEntry } from './code-taking-programs.js';
export { COMMAND_RUNNERS, isCodeArgument, nestedCommandIndex } from './command-arguments.js';
export type { CommandLineReading, SimpleCommand } from './command-line.js';
export { readCommandLine } from './command-line.js';
export { confinementOf } from './confinement.js';
export type {
  ContainerRuntimeChoice,
  ContainerRuntimeName,
  ContainerRuntimeStatus,
} from './container-runtime.js';
export { configureContainerRuntime, containerRuntimeStatus } from './container-runtime.js';
export type { EntrypointErrorCode, EntrypointErrorDetails } from './errors.js';
export { EntrypointError, isEntrypointError } from './errors.js';
export { DEFAULT_MAX_IMAGE_BYTES, imageBytes, imagesWithin } from './image-limit.js';
export { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from './limits.js';
export type { ModuleTarget, NodeTarget, PythonTarget } from './module-target.js';
export { moduleTargetOf } from './module-target.js';
export type { NodeToolContext, SandboxAccess } from './node.js';
export type { NodeToolsOptions } from './node-placement.js';
export { configureNodeTools } from './node-placement.js';
export type { ProcessGuardMode, ProcessGuardStatus } from './process-guard.js';
export { configureProcessGuard, processGuardStatus } from './process-guard.js';
export type { StopAllOptions, StopAllSummary } from './process-registry.js';
export { stopAllProcesses } from './process-registry.js';
export { redactUrl } from './redact.js';
export type { SandboxMode, SandboxOptions, SandboxStatus } from './sandbox.js';
export { configureSandbox, sandboxStatus } from './sandbox.js';
export { PROTECTED_WORKSPACE_PATHS } from './sandbox-protected.js';
export {
  checkEntrypoint,
  inspectEntrypoint,
  registerScheme,
  resolveEntrypoint,
  supportedSchemes,
  unregisterScheme,
} from './schemes.js';
export type { ServerExit, ServerProcess, ServerProcessSpec } from './server-process.js';
export { wrapServerCommand } from './server-process.js';
export type { EntrypointProblem } from './target.js';
export type {
  Confinement,
  Entrypoint,
  FileAccess,
  JsonSchemaObjectLike,
  OutputChunk,
  ResolveContext,
  RunOptions,
  RunResult,
  SchemeContext,
  SchemeFactory,
  ToolImage,
  ToolSettings,
} from './types.js';
