export { BirdieCheckpointer } from './checkpointer/saver.js';
export type { ReadOnlyReason, ReadOnlyState } from './db.js';
export type { DamagedSession, DoctorReport } from './doctor.js';
export {
  type DamagedRecord,
  isStoreError,
  type LeaseHolder,
  type RecordDamage,
  StoreError,
  type StoreErrorCode,
} from './errors.js';
export type { Grants, GrantsRepo } from './grants.js';
export type { SessionLease } from './held-lease.js';
export { validateSessionId, validateUserId } from './ids.js';
export type { RunJournal } from './journal.js';
export type { AcquireOptions, LeasesRepo } from './leases.js';
export type { MemoryEntry, MemoryRepo } from './memory.js';
export type { QuarantinedRecord, RepairReport } from './repair.js';
export type {
  FinishedStatus,
  RunFinish,
  RunRecord,
  RunStatus,
  RunsRepo,
  ToolCallRecord,
  ToolCallStatus,
} from './runs.js';
export type { Session, Sessions, Usage } from './sessions.js';
export { openStore, type Store, type StoreOptions } from './store.js';
export type { TrustDecision, TrustRecord, TrustRepo } from './trust.js';
