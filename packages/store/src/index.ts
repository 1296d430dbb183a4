export { BirdieCheckpointer } from './checkpointer/saver.js';
export { type StoreErrorCode, StoreError } from './errors.js';
export type { Grants, GrantsRepo } from './grants.js';
export { validateSessionId, validateUserId } from './ids.js';
export type { MemoryEntry, MemoryRepo } from './memory.js';
export type {
  FinishedStatus,
  RunFinish,
  RunRecord,
  RunStatus,
  RunsRepo,
  ToolCallInput,
  ToolCallRecord,
} from './runs.js';
export type { Session, Sessions, Usage } from './sessions.js';
export { openStore, type Store, type StoreOptions } from './store.js';
