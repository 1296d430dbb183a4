export type RegistryErrorCode =
  | 'invalid-policy-key'
  | 'invalid-skill-name'
  | 'async-callback'
  | 'watch-failed'
  | 'reload-failed';

/** A run-time failure of this package. Problems in skill files are diagnostics, never this. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  readonly code: RegistryErrorCode;

  constructor(code: RegistryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export function isRegistryError(value: unknown, code?: RegistryErrorCode): value is RegistryError {
  return value instanceof RegistryError && (code === undefined || value.code === code);
}
