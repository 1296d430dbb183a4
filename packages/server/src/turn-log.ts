import type { Log } from './log.js';
import type { TurnContext, TurnEnd, TurnObserver } from './turn-observer.js';

/** Each turn's start and end as log entries, with the request that started it. */
export function turnLog(log: Log): TurnObserver {
  return {
    started: (turn) => log({ level: 'info', msg: 'turn started', ...fields(turn) }),
    event: () => {},
    finished: (turn, end: TurnEnd) =>
      log({
        level: end.error === undefined ? 'info' : 'error',
        msg: 'turn finished',
        ...fields(turn),
        status: end.status,
        durationMs: Math.round(end.seconds * 1000),
        ...(end.summary
          ? { inputTokens: end.summary.inputTokens, outputTokens: end.summary.outputTokens }
          : {}),
        ...(end.summary?.errorCode ? { errorCode: end.summary.errorCode } : {}),
        // The operator's log: what went wrong, which the client is not told.
        ...(end.error !== undefined ? { error: errorText(end.error) } : {}),
      }),
  };
}

function fields(turn: TurnContext) {
  return {
    ...(turn.requestId !== undefined ? { requestId: turn.requestId } : {}),
    sessionId: turn.sessionId,
    userId: turn.userId,
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
