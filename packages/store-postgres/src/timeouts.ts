/**
 * How long the store waits for the server. A frozen server or a network that drops packets sends neither an answer
 * nor a reset: without bounds every call would wait for ever. The defaults leave room for a loaded server.
 */
export interface Timeouts {
  /** Opening a connection (or waiting for a free one in the pool). */
  connectMs: number;
  /** One statement's answer; 0: none. The connection is then dropped, since its socket may be dead. */
  queryMs: number;
  /** `ready()`'s whole round trip: a readiness probe must answer quickly either way. */
  readyMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, queryMs: 30_000, readyMs: 5_000 };
