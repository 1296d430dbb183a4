import { storeFailureHint, turnFailure } from '@birdie/runtime/store-failure';
import type { TurnResult } from '@birdie/runtime/turn';

/**
 * The `error` event of a turn that ended `error` without sending one: a store call of the runtime's own failed (the
 * run log's progress after a model call, the session's files, the lease at the end: the database went away or became
 * unwritable), and the runtime put why in the turn's result only. `birdie run --json`'s stream promises an `error`
 * event before `done` status `error`, as `birdie serve`'s does; it says what the text mode's line says on stderr:
 * the store's code, message and hint.
 */
export function unsentTurnError(
  result: Pick<TurnResult, 'error' | 'errorCode' | 'errorHint'>,
  sessionId: string,
): object {
  const failure = turnFailure(result, 'the turn failed; `birdie logs` says why');
  const hint = storeFailureHint(failure, sessionId);
  return {
    type: 'error',
    error: { code: failure.code, message: failure.message, ...(hint ? { hint } : {}) },
  };
}
