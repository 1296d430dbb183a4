import { failureJson } from './failure-json.js';
import { turnResultJson } from './json-events.js';

/** The tokens a turn's `usage` events reported so far: what a turn that threw had used. */
export interface UsedTokens {
  inputTokens: number;
  outputTokens: number;
}

/**
 * The end of `birdie run --json`'s stream for a turn that threw once its `session` event was out (the session is
 * busy, the store cannot start or log the run): the reason as an `error` event with its stable code, then the one
 * `done` and the closing `result` the stream promises. A store failure keeps its code (`session-busy`, `disk-full`…),
 * as every `--json` failure says it (`failureJson`). The result names no run: such a turn was never logged as finished.
 */
export function thrownTurnJson(error: unknown, sessionId: string, used: UsedTokens): object[] {
  return [
    { type: 'error', error: failureJson(error) },
    { type: 'done', status: 'error' },
    turnResultJson({ status: 'error', session: sessionId, ...used }),
  ];
}
