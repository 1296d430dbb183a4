/** Stable codes for every failure the store reports. */
export type StoreErrorCode =
  | 'invalid-id'
  | 'invalid-argument'
  | 'not-found'
  | 'not-owner'
  | 'locked'
  | 'session-busy'
  | 'lease-lost'
  | 'migration-failed'
  | 'closed'
  | 'home-unusable'
  | 'disk-full'
  | 'file-too-large'
  | 'read-only'
  | 'malformed'
  | 'corrupt-record'
  | 'io'
  | 'unavailable';

/** Who holds a session's lease: one process on one machine, until `expiresAt` unless it renews. */
export interface LeaseHolder {
  /** Random per open store (so, in practice, per process). */
  owner: string;
  host: string;
  pid: number;
  /** When this holder acquired the lease. */
  since: Date;
  /** Wall-clock expiry; the holder's heartbeat moves it forward. */
  expiresAt: Date;
}

/** One stored record that fails its checksum or does not decode. */
export interface DamagedRecord {
  /** The session (LangGraph thread id) the record belongs to. */
  sessionId: string;
  /** Checkpoint namespace; `''` for the session's own graph. */
  ns: string;
  table: 'cp_checkpoints' | 'cp_writes' | 'cp_blobs' | 'grants' | 'session_files';
  /** The step: the checkpoint the record belongs to (its id and row number), when one is known. */
  checkpointId?: string;
  seq?: number;
  /** `cp_writes`: the task whose writes these are. */
  taskId?: string;
  /** `cp_blobs`: the row id of the stored value. */
  blobId?: number;
  reason: string;
}

/** What a `corrupt-record` error carries: the damaged record and where the session can continue from. */
export interface RecordDamage extends DamagedRecord {
  /** The newest checkpoint of this namespace with no damage in it or its ancestors; undefined if none. */
  lastGoodCheckpointId?: string;
}

export interface StoreErrorDetails {
  cause?: unknown;
  /** The database file concerned (disk, permission and damage errors). */
  file?: string;
  /** What the user can do about it, in one sentence. */
  hint?: string;
  /** `session-busy`, `lease-lost`: the current holder of the lease. */
  holder?: LeaseHolder;
  /** `not-owner`: the user the session belongs to. */
  owner?: string;
  /** `corrupt-record`: which record, and the last good step. */
  damage?: RecordDamage;
}

/** A run-time failure of the store, with a stable `code` and the underlying `cause`. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  readonly code: StoreErrorCode;
  readonly file?: string;
  readonly hint?: string;
  readonly holder?: LeaseHolder;
  readonly owner?: string;
  readonly damage?: RecordDamage;

  constructor(code: StoreErrorCode, message: string, details: StoreErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    if (details.file !== undefined) this.file = details.file;
    if (details.hint !== undefined) this.hint = details.hint;
    if (details.holder !== undefined) this.holder = details.holder;
    if (details.owner !== undefined) this.owner = details.owner;
    if (details.damage !== undefined) this.damage = details.damage;
  }
}

/** Whether `error` is a `StoreError` (optionally with one of `codes`). */
export function isStoreError(error: unknown, ...codes: StoreErrorCode[]): error is StoreError {
  return error instanceof StoreError && (codes.length === 0 || codes.includes(error.code));
}

/** SQLite reports a held lock as SQLITE_BUSY / SQLITE_LOCKED (with extended variants). */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/** How a run that died is said without naming the process or the machine that ran it. */
export const DIED_WITHOUT_HOLDER = 'died: the process running it stopped without finishing it';

/** How the store names a lease's holder in a message: `process 4242 on build-7`. */
const HOLDER = /\bprocess \d+ on \S+/g;
const NAMES_HOLDER = /\bprocess \d+ on \S+/;

/**
 * A failure's message as the users of a shared server may read it. The store words a busy session, a lease taken over
 * and a run that died with the process and the machine that held them (`process 4242 on build-7`), which helps the one
 * user of a local store find it; on a server those are the operator's, who keeps them in the run log (`host`, `pid`)
 * and the server's log. `code` is the failure's code (`session-busy`, `lease-lost`, the CLI's `busy`) or a run's status
 * (`died`): the holder becomes "another process", the rest of the sentence stays (a died run that names one is said as
 * `DIED_WITHOUT_HOLDER`). Any other message is returned as it is.
 */
export function withoutHolder(code: string | undefined, message: string): string {
  // A run can die for other reasons (its end could not be recorded while the database was down): said as it is.
  if (code === 'died') return NAMES_HOLDER.test(message) ? DIED_WITHOUT_HOLDER : message;
  if (code === 'session-busy' || code === 'lease-lost' || code === 'busy')
    return message.replace(HOLDER, 'another process');
  return message;
}
