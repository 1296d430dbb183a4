/**
 * One entry of the server's log, given to the application (`ServerOptions.onLog`), which decides how to write it:
 * the server itself never prints. `msg` is short and stable (`request`, `turn started`, `turn finished`); the other
 * fields are structured (`requestId`, `method`, `path`, `status`, `durationMs`, `userId`, `sessionId`, …).
 */
export interface LogEntry {
  level: 'info' | 'warn' | 'error';
  msg: string;
  requestId?: string;
  [field: string]: unknown;
}

export type Log = (entry: LogEntry) => void;
