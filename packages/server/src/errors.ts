/** Stable codes of the API's errors, each with its HTTP status. */
export const ERROR_STATUS = {
  'invalid-request': 400,
  'invalid-arguments': 400,
  'invalid-encoding': 400,
  unauthorized: 401,
  forbidden: 403,
  'skill-not-allowed': 403,
  'agent-not-allowed': 403,
  'not-found': 404,
  'method-not-allowed': 405,
  'session-busy': 409,
  'nothing-pending': 409,
  'payload-too-large': 413,
  'workspace-bytes-exceeded': 413,
  'unsupported-media-type': 415,
  'idempotency-key-reused': 422,
  'rate-limited': 429,
  'concurrent-turns-limit': 429,
  'turns-per-minute-limit': 429,
  'mcp-sessions-limit': 429,
  internal: 500,
  'workspace-unusable': 500,
  unavailable: 503,
} as const;

export type ApiErrorCode = keyof typeof ERROR_STATUS;

/** A failure the API answers with `{ error: { code, message } }` and the code's status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ApiErrorCode;
  readonly status: number;
  /** Seconds, for `Retry-After` (429, 503). */
  readonly retryAfter?: number;

  constructor(code: ApiErrorCode, message: string, options: { cause?: unknown; retryAfter?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = ERROR_STATUS[code];
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
  }
}

export function isApiError(error: unknown, ...codes: ApiErrorCode[]): error is ApiError {
  return error instanceof ApiError && (codes.length === 0 || codes.includes(error.code));
}

/** A run of characters without a blank longer than this is something the request sent, not the server's words. */
const LONGEST_WORD = 200;
/** What is kept of each end of such a run: enough to recognise the value. */
const KEPT_END = 40;
const LONG_WORD = new RegExp(`\\S{${LONGEST_WORD + 1},}`, 'g');

/**
 * The body of every error response. A message repeats what the request named (`no session <id>`, `no such endpoint:
 * GET <path>`); a value of thousands of characters is shortened in the middle, its ends kept, so that the answer to a
 * hostile or mistaken request is not as long as the request and the message stays readable.
 */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message: shortenLongWords(message) } };
}

function shortenLongWords(message: string): string {
  if (message.length <= LONGEST_WORD) return message;
  return message.replace(LONG_WORD, (word) => {
    const left = word.length - 2 * KEPT_END;
    return `${word.slice(0, KEPT_END)}…[${left.toLocaleString('en-US')} more characters]…${word.slice(-KEPT_END)}`;
  });
}
