/** Stable codes: callers (and the model-facing tool adapter) branch on these, never on messages. */
export type EntrypointErrorCode =
  | 'bad-entrypoint'
  | 'bad-template'
  | 'unknown-placeholder'
  | 'unsupported-scheme'
  | 'scheme-conflict'
  | 'missing-argument'
  | 'bad-argument'
  | 'bad-option'
  | 'path-escape'
  | 'spawn-failed'
  | 'non-zero-exit'
  | 'timeout'
  | 'aborted'
  | 'http-status'
  | 'network'
  | 'cross-origin-redirect'
  | 'module-not-found'
  | 'export-not-found'
  | 'call-failed'
  | 'python-missing'
  | 'bad-output'
  | 'process-guard-unavailable'
  | 'sandbox-unavailable'
  | 'container-runtime-missing'
  | 'container-image-missing'
  | 'container-failed'
  | 'bad-proto'
  | 'schema-mismatch'
  | 'grpc-status'
  | 'unknown-builtin'
  | 'builtin-only';

export interface EntrypointErrorDetails {
  cause?: unknown;
  /** Output captured before the failure (already capped), when there was any. */
  output?: string;
  exitCode?: number;
  status?: number;
  /** 0-based offset into the entrypoint string of what the error is about (resolve-time errors), when known. */
  offset?: number;
}

export class EntrypointError extends Error {
  override name = 'EntrypointError';
  readonly code: EntrypointErrorCode;
  declare readonly output?: string;
  declare readonly exitCode?: number;
  declare readonly status?: number;
  declare readonly offset?: number;

  constructor(code: EntrypointErrorCode, message: string, details: EntrypointErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    if (details.output !== undefined) this.output = details.output;
    if (details.exitCode !== undefined) this.exitCode = details.exitCode;
    if (details.status !== undefined) this.status = details.status;
    if (details.offset !== undefined) this.offset = details.offset;
  }
}

export function isEntrypointError(value: unknown, code?: EntrypointErrorCode): value is EntrypointError {
  return value instanceof EntrypointError && (code === undefined || value.code === code);
}
