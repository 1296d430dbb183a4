import { type RecordDamage, StoreError } from '../errors.js';
import type { DamageError } from './damage.js';

export interface DamageContext {
  /** The SQLite file (set on the error as `file`). */
  file?: string;
  /** Where the store is, for the message; defaults to `file`. */
  location?: string;
  sessionId: string;
  ns: string;
  checkpointIdOf(seq: number): string | undefined;
  /** The newest checkpoint of the namespace with no damage in it or its ancestors. */
  lastGood(): Promise<string | undefined>;
}

/** `corrupt-record` naming the session, the step and the file, with the step the session reads fine up to. */
export async function corruptRecordError(error: DamageError, ctx: DamageContext): Promise<StoreError> {
  const { file, sessionId, ns } = ctx;
  const where = ctx.location ?? file ?? 'the store';
  const { seq, taskId, blobId } = error.where;
  const damage: RecordDamage = { sessionId, ns, table: error.table, reason: error.reason };
  if (seq !== undefined) {
    damage.seq = seq;
    const id = ctx.checkpointIdOf(seq);
    if (id !== undefined) damage.checkpointId = id;
  }
  if (taskId !== undefined) damage.taskId = taskId;
  if (blobId !== undefined) damage.blobId = blobId;
  try {
    const good = await ctx.lastGood();
    if (good !== undefined) damage.lastGoodCheckpointId = good;
  } catch {
    // The check itself failed (the file is worse off): report what is known.
  }
  const step = damage.checkpointId ? `step ${damage.checkpointId} (checkpoint row ${seq})` : 'a step';
  const record = [error.table, taskId && `task ${taskId}`, blobId !== undefined && `value ${blobId}`]
    .filter(Boolean)
    .join(', ');
  const before = damage.lastGoodCheckpointId
    ? `it reads fine up to step ${damage.lastGoodCheckpointId}`
    : 'no earlier step of it is intact';
  return new StoreError(
    'corrupt-record',
    `session ${sessionId} has a damaged record at ${step} in ${where} (${record}: ${error.reason}); ${before}`,
    {
      cause: error,
      ...(file === undefined ? {} : { file }),
      damage,
      hint: 'repair the session to continue from its last good step (the damaged records are kept aside), or delete it',
    },
  );
}
