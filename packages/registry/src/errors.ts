export type RegistryErrorCode =
  | 'ERR_INVALID_POLICY_KEY'
  | 'ERR_INVALID_SKILL_NAME'
  | 'ERR_WATCH'
  | 'ERR_RELOAD';

/** A run-time failure of this package. Problems in skill files are diagnostics, never this. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  readonly code: RegistryErrorCode;

  constructor(code: RegistryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
