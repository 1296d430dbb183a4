import type { TurnEvent, TurnStatus, TurnSummary } from './runtime.js';

/** Which turn an observation is about. */
export interface TurnContext {
  sessionId: string;
  userId: string;
  /** The request that started (or resumed) the turn. */
  requestId?: string;
}

/** How a turn ended: its summary, or `error` when its run could not be recorded (it then ends `error`). */
export interface TurnEnd {
  status: TurnStatus;
  seconds: number;
  summary?: TurnSummary;
  error?: unknown;
}

/** What the server tells about its turns as they run (the metrics and the log listen here; Turns calls them). */
export interface TurnObserver {
  started(turn: TurnContext): void;
  event(turn: TurnContext, event: TurnEvent): void;
  finished(turn: TurnContext, end: TurnEnd): void;
}
