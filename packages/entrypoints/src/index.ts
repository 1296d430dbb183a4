export { BUILTIN_ENTRYPOINTS } from './builtin.js';
export { confinementOf } from './confinement.js';
export type {
  ContainerRuntimeChoice,
  ContainerRuntimeName,
  ContainerRuntimeStatus,
} from './container-runtime.js';
export { configureContainerRuntime, containerRuntimeStatus } from './container-runtime.js';
export type { EntrypointErrorCode, EntrypointErrorDetails } from './errors.js';
export { EntrypointError, isEntrypointError } from './errors.js';
export { DEFAULT_KILL_GRACE_MS, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS } from './limits.js';
export type { NodeToolContext } from './node.js';
export type { NodeToolsOptions } from './node-placement.js';
export { configureNodeTools } from './node-placement.js';
export type { ProcessGuardMode, ProcessGuardStatus } from './process-guard.js';
export { configureProcessGuard, processGuardStatus } from './process-guard.js';
export type { StopAllOptions, StopAllSummary } from './process-registry.js';
export { stopAllProcesses } from './process-registry.js';
export { redactUrl } from './redact.js';
export type { SandboxMode, SandboxOptions, SandboxStatus } from './sandbox.js';
export { configureSandbox, sandboxStatus } from './sandbox.js';
export {
  checkEntrypoint,
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
  ToolSettings,
} from './types.js';
