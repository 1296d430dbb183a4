import { isStoreErrorLike, sessionBusyCause, storeFailureHint } from '@birdie/runtime/store-failure';
import { turnResultJson } from './json-events.js';

/** The tokens a turn's `usage` events reported so far: what a turn that threw had used. */
export interface UsedTokens {
  inputTokens: number;
  outputTokens: number;
}

/**
 * The end of `birdie run --json`'s stream for a turn that threw once its `session` event was out (the session is
 * busy, the store cannot start or log the run): the reason as an `error` event with its stable code, then the one
 * `done` and the closing `result` the stream promises. A store failure keeps its code (`session-busy`, `disk-full`…);
 * anything else is `internal`. The result names no run: such a turn was never logged as finished.
 */
export function thrownTurnJson(error: unknown, sessionId: string, used: UsedTokens): object[] {
  return [
    { type: 'error', error: thrownFailure(error) },
    { type: 'done', status: 'error' },
    turnResultJson({ status: 'error', session: sessionId, ...used }),
  ];
}

function thrownFailure(thrown: unknown): { code: string; message: string; hint?: string } {
  // A busy session is the runtime's `busy` error; its code here stays the store's `session-busy`.
  const error = sessionBusyCause(thrown);
  if (!isStoreErrorLike(error))
    return { code: 'internal', message: error instanceof Error ? error.message : String(error) };
  // As stderr's line says it (`storeFailure`): a damaged record's fix names the session the damage is in.
  const hint = storeFailureHint(error, error.damage?.sessionId);
  return { code: error.code, message: error.message, ...(hint ? { hint } : {}) };
}
