import { isDeepStrictEqual } from 'node:util';

/** LangGraph's channels for interrupts and recorded resume values (not exported from the package root). */
const INTERRUPT = '__interrupt__';
const RESUME = '__resume__';
/** The task id LangGraph records a `Command({ resume })` under before any task consumes it. */
const NULL_TASK_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Whether the open interrupt of the tools task still waits for an answer, read from the checkpoint's pending writes.
 *
 * A task asks in rounds (one `interrupt()` each) and records the answers it consumed as a list under its own id; a
 * resume first records its answer under the null task id. So:
 * - the round of the open interrupt = how many answers the task had consumed when it raised it;
 * - the answers given = the task's list, plus one when the null-task answer is newer than the list's last entry
 *   (a resume began and its process stopped before the task finished or asked again).
 * An interrupt answered that way is not pending: the approved call may have run, and offering it again could run it
 * twice; the next message repairs the call like any other interrupted one.
 */
export function interruptAnswered(writes: ReadonlyArray<readonly [string, string, unknown]>): boolean {
  let asked = false;
  let consumed: unknown[] = [];
  let fresh: { value: unknown } | undefined;
  for (const [task, channel, value] of writes) {
    if (channel === INTERRUPT) asked = true;
    else if (channel === RESUME && task === NULL_TASK_ID) fresh = { value };
    else if (channel === RESUME && Array.isArray(value)) consumed = value;
  }
  // Answers given exceed the open round exactly when the null-task answer has not been consumed yet.
  return (
    asked &&
    fresh !== undefined &&
    (consumed.length === 0 || !isDeepStrictEqual(consumed.at(-1), fresh.value))
  );
}
