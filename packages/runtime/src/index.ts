// The runtime's public surface. Each module is also importable on its own (`@birdie/runtime/turn`, …), which is how
// the CLI loads only what a command needs; the adapters for @birdie/server and @birdie/acp are only there
// (`@birdie/runtime/server-runtime`, `@birdie/runtime/acp-runtime`), so this entry never needs those packages.
export {
  type LoadedConfig,
  loadConfig,
  NoProviderError,
  providerLabel,
  SavedProviderError,
} from './config.js';
export { type DiagnosticLike, relativeIfInside } from './diagnostics.js';
export {
  EXIT_BUSY,
  EXIT_RUN,
  EXIT_USAGE,
  isRuntimeError,
  RuntimeError,
  type RuntimeErrorCode,
  UsageError,
} from './errors.js';
export type { Flags } from './flags.js';
export { type History, historyOf, readHistory } from './history.js';
export type { RuntimeIo } from './io.js';
export { loadSettings } from './isolation.js';
export { birdieHome, configFile } from './paths.js';
export {
  approvalMode,
  findSession,
  modelLabel,
  type OpenRuntimeOptions,
  openRuntime,
  openUserStore,
  type Runtime,
} from './runtime.js';
export { createSession, type NewSessionOptions, useSession } from './session-start.js';
export type { Settings } from './settings.js';
export { openRegistry, openTrustedRegistry } from './skills.js';
export {
  executeTurn,
  type TurnEvent,
  type TurnHandlers,
  type TurnInput,
  type TurnOptions,
  type TurnResult,
  type TurnStatus,
} from './turn.js';
export { runTriggered, type TriggeredRun } from './unattended.js';
