import { type StepLink, withDescendants } from './checkpointer/descendants.js';
import type { QuarantinedRecord } from './interface.js';

// What a repair moves aside and how it words it, apart from the statements that move it: both back ends
// quarantine the same steps with the same rows and report them alike.

/** A step moved aside: its row id and checkpoint id. */
export interface MovedStep extends StepLink {
  checkpoint_id: string;
}

/** The reason given to a step that is not damaged itself but descends from one that is. */
export const FOLLOWS_DAMAGED = 'follows a damaged step';

/**
 * The steps a repair moves aside, oldest first, with the reason each is given: the damaged ones and, recomputed
 * from the rows as they are now, every descendant (a step added since the check is one too).
 */
export function stepsToMove<T extends StepLink>(
  steps: readonly T[],
  bad: ReadonlyMap<number, string>,
): { step: T; reason: string }[] {
  const doomed = withDescendants(steps, (seq) => bad.has(seq));
  return steps
    .filter((s) => doomed.has(s.seq))
    .sort((a, b) => a.seq - b.seq)
    .map((step) => ({ step, reason: bad.get(step.seq) ?? FOLLOWS_DAMAGED }));
}

/** One `cp_quarantine` row, less the session, namespace and time every row of a repair shares. */
export interface QuarantineRow {
  source: QuarantinedRecord['table'];
  checkpointId: string | null;
  seq: number | null;
  taskId: string | null;
  blobId: number | null;
  meta: string;
  data: Buffer | null;
  reason: string;
}

/** What moving one record aside stores and reports. */
export interface Moved {
  row: QuarantineRow;
  record: QuarantinedRecord;
}

/** The parameters of a `cp_quarantine` insert, in the column order both back ends use. */
export function quarantineParams(sessionId: string, ns: string, row: QuarantineRow, at: number): unknown[] {
  return [
    sessionId,
    ns,
    row.source,
    row.checkpointId,
    row.seq,
    row.taskId,
    row.blobId,
    row.meta,
    row.data,
    row.reason,
    at,
  ];
}

/** A task's write record of `step` (`taskId` null: the whole column, whose framing is broken). */
export function movedWrites(
  ns: string,
  step: MovedStep,
  taskId: string | null,
  data: Buffer,
  reason: string,
): Moved {
  return {
    row: {
      source: 'cp_writes',
      checkpointId: step.checkpoint_id,
      seq: step.seq,
      taskId,
      blobId: null,
      meta: JSON.stringify({ checkpoint: step.seq, task_id: taskId }),
      data,
      reason,
    },
    record: {
      table: 'cp_writes',
      ns,
      checkpointId: step.checkpoint_id,
      seq: step.seq,
      ...(taskId === null ? {} : { taskId }),
      reason,
    },
  };
}

/** The checkpoint row of `step` in thread row `thread`; `extra` is what else the back end's row holds. */
export function movedCheckpoint(
  ns: string,
  thread: number,
  step: MovedStep,
  body: Buffer | null,
  reason: string,
  extra: Record<string, unknown> = {},
): Moved {
  const meta = {
    seq: step.seq,
    thread,
    checkpoint_id: step.checkpoint_id,
    parent_seq: step.parent_seq,
    ...extra,
  };
  return {
    row: {
      source: 'cp_checkpoints',
      checkpointId: step.checkpoint_id,
      seq: step.seq,
      taskId: null,
      blobId: null,
      meta: JSON.stringify(meta),
      data: body,
      reason,
    },
    record: { table: 'cp_checkpoints', ns, checkpointId: step.checkpoint_id, seq: step.seq, reason },
  };
}

/** A damaged value of thread row `thread`; `key` is how the back end names its content. */
export function movedValue(
  ns: string,
  thread: number,
  id: number,
  key: Record<string, unknown>,
  data: Buffer,
  reason: string,
): Moved {
  return {
    row: {
      source: 'cp_blobs',
      checkpointId: null,
      seq: null,
      taskId: null,
      blobId: id,
      meta: JSON.stringify({ id, thread, ...key }),
      data,
      reason,
    },
    record: { table: 'cp_blobs', ns, blobId: id, reason },
  };
}
