export type SchedulerErrorCode = 'invalid-trigger' | 'stopped';

export class SchedulerError extends Error {
  readonly code: SchedulerErrorCode;
  constructor(code: SchedulerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SchedulerError';
    this.code = code;
  }
}

export function isSchedulerError(error: unknown, ...codes: SchedulerErrorCode[]): error is SchedulerError {
  return error instanceof SchedulerError && (codes.length === 0 || codes.includes(error.code));
}
