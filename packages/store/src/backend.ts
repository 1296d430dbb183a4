// What a back end implementing the store interface reuses, so every back end validates, words errors, leases
// and encodes checkpoint records the same way. Loads neither SQLite nor a database client.

export { checkAdmission, checkAdmissionId } from './admissions-check.js';
export { BlobCache, MissingBlobError } from './checkpointer/blob-cache.js';
export {
  type BlobDraft,
  contentKey,
  decodeRef,
  Encoder,
  type Ref,
  refIds,
  rememberIdentity,
  resolveRef,
  type Serde,
} from './checkpointer/codec.js';
export { pack, packText, unpack, unpackText } from './checkpointer/compress.js';
export {
  channelList,
  matches,
  missing,
  putTarget,
  target,
  threadKey,
  writesTarget,
} from './checkpointer/config.js';
export { corruptRecordError, type DamageContext } from './checkpointer/corrupt.js';
export { DamageError, decoding, reasonOf } from './checkpointer/damage.js';
export { type StepLink, withDescendants } from './checkpointer/descendants.js';
export { withReuse } from './checkpointer/encode-reuse.js';
export {
  type DeltaChannelHistory,
  HistoryCache,
  HistoryWalk,
  knownHistories,
} from './checkpointer/history-walk.js';
export {
  type ListOptions,
  type ListPlan,
  listedTuples,
  listPlan,
} from './checkpointer/list-plan.js';
export { MessageSerde } from './checkpointer/message-serde.js';
export { compareWrites, SPECIAL_WRITE_INDEX, type StoredWrite } from './checkpointer/order.js';
export {
  checkpointText,
  draftValues,
  draftWrites,
  inheritedVals,
  mergeWrites,
  rememberBody,
  type WriteDraft,
} from './checkpointer/put-shape.js';
export { type Body, parseBody, parseRecord, type WritesRecord } from './checkpointer/read.js';
export {
  CHECK_PAGE,
  type CheckpointInfo,
  emptyThreadCheck,
  NamespaceCheck,
  type ThreadCheck,
  type ValueDecoder,
} from './checkpointer/thread-check.js';
export { bodyTs, storedTs } from './checkpointer/timestamp.js';
export {
  decodeValue,
  decodeWrites,
  type TupleRow,
  type TupleSource,
  toTuple,
  type WriteRow,
} from './checkpointer/tuple.js';
export { checkCount, checkDate, checkKey, checkObject, checkOptions, checkText } from './checks.js';
export { checkDeliveryClaim, checkDeliveryKeys } from './deliveries-check.js';
export { DoctorTally, type GrantsText } from './doctor-tally.js';
export {
  type DamagedRecord,
  isStoreError,
  type LeaseHolder,
  type RecordDamage,
  StoreError,
  type StoreErrorCode,
} from './errors.js';
export { localDay, sessionIdFor, validateLeaseKey, validateSessionId, validateUserId } from './ids.js';
export type * from './interface.js';
export {
  busy,
  checkFence,
  checkHeld,
  type HeldHere,
  holderOf,
  isLive,
  type LeaseRow,
  leaseLost,
  newHolder,
  takenOverError,
} from './lease-rows.js';
export { type LeaseAttempt, waitForLease } from './lease-wait.js';
export { type MemoryRow, toEntry } from './memory.js';
export { pidScope, processGone } from './process-alive.js';
export { checkReadiness, type StoreReadiness } from './readiness.js';
export {
  FOLLOWS_DAMAGED,
  type Moved,
  type MovedStep,
  movedCheckpoint,
  movedValue,
  movedWrites,
  type QuarantineRow,
  quarantineParams,
  stepsToMove,
} from './repair-plan.js';
export {
  diedMessage,
  joinedLease,
  noParentRun,
  type RunningRow,
  type RunRow,
  type RunStarter,
  type RunWithLease,
  runIsDead,
  runQueryClause,
  runStartValues,
  type ToolRow,
  toRun,
  toTool,
} from './runs.js';
export { redactSecrets, scrubSecrets } from './secrets.js';
export {
  type CheckedPut,
  checkAgentName,
  checkedContent,
  checkFileChanges,
  checkFilePath,
  checkFileTotals,
  checkTokenAdmin,
  checkTokenId,
  checkTokenName,
  hashToken,
  isTokenShaped,
  newToken,
  SESSION_FILE_LIMITS,
  type SessionFileRow,
  sha256Hex,
  standingOf,
  TOKEN_USE_RESOLUTION_MS,
  type TokenRow,
  toApiToken,
  toSessionFile,
} from './session-files-check.js';
export { SESSION_COLUMNS, type SessionRow, toSession } from './sessions.js';
export { finishedAs, type TaskRow, toTask } from './tasks.js';
export { checkDue } from './triggers.js';
export { type TrustRow, toRecord as toTrustRecord } from './trust.js';
export {
  checkEventsQuery,
  checkIdempotencyKey,
  checkTurnEvents,
  checkTurnId,
  checkTurnLabel,
  endedTurnError,
  missingTurnError,
  TURN_COLUMNS,
  type TurnEventRow,
  type TurnRow,
  toTurn,
  toTurnEvent,
} from './turn-log-check.js';
export {
  checkAcquire,
  checkCallIds,
  checkDir,
  checkFinishedCall,
  checkGrants,
  checkMemoryContent,
  checkRunAgent,
  checkRunFinish,
  checkRunProgress,
  checkRunStart,
  checkRunStatus,
  checkStartedCall,
  checkTask,
  checkTitle,
  checkTrust,
  checkUsage,
  DEFAULT_TTL_MS,
  decodeGrants,
  decodeUsage,
  grantsDamage,
  MAX_ANSWER,
  RUN_STATUSES,
} from './validate.js';
