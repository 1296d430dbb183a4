/** A refusal or failure the model can act on: the message says what went wrong and what to do instead. */
export class WebFetchError extends Error {
  /**
   * @param {string} code stable kebab-case code (`blocked-address`, `bad-url`, …)
   * @param {string} message
   * @param {unknown} [cause]
   */
  constructor(code, message, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'WebFetchError';
    this.code = code;
  }
}

/** @param {unknown} error @returns {error is WebFetchError} */
export function isWebFetchError(error) {
  return error instanceof WebFetchError;
}
