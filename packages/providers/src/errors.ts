export type ProviderErrorCode =
  | 'unknown-vendor'
  | 'missing-api-key'
  | 'config-file-unreadable'
  | 'config-invalid-json'
  | 'config-invalid'
  | 'missing-package'
  | 'script-unreadable'
  | 'script-invalid'
  | 'script-exhausted'
  | 'rate-limited'
  | 'server-error'
  | 'timeout'
  | 'auth-failed'
  | 'request-failed'
  | 'agent-failed'
  | 'unknown-tier';

export interface ProviderErrorDetails {
  cause?: unknown;
  vendor?: string;
  /** HTTP status of the last response, when the failure came from the vendor's API. */
  status?: number;
  /** The config or script file the problem is in. */
  file?: string;
  /** 1-based position in `file` (JSON syntax errors). */
  line?: number;
  column?: number;
  /** Dotted config field the problem is about (`temperature`, `replies.2.tool_calls.0.name`). */
  field?: string;
  /** Environment variable the user should set (missing key, failed auth). */
  envVar?: string;
  /** Package to install (missing-package). */
  packageName?: string;
}

/** The one error type of this package: a stable `code`, the details a caller needs to explain it, and the cause. */
export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly code: ProviderErrorCode;
  readonly vendor?: string;
  readonly status?: number;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly field?: string;
  readonly envVar?: string;
  readonly packageName?: string;

  constructor(code: ProviderErrorCode, message: string, details: ProviderErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    const { cause: _cause, ...rest } = details;
    for (const [key, value] of Object.entries(rest)) {
      if (value !== undefined) Object.defineProperty(this, key, { value, enumerable: true });
    }
  }
}

/** Replaces every occurrence of each secret (and of its first 8+ characters, as vendors echo prefixes) by `***`. */
export function redact(text: string, secrets: Array<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    out = out.split(secret).join('***');
    if (secret.length >= 12) out = out.split(secret.slice(0, 8)).join('***');
  }
  return out;
}
