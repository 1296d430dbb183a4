/** A refusal or failure the model can act on: the message says what went wrong and what to do instead. */
export class FilesystemError extends Error {
  /**
   * @param {string} code stable kebab-case code (`outside-root`, `not-found`, …)
   * @param {string} message
   * @param {unknown} [cause]
   */
  constructor(code, message, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'FilesystemError';
    this.code = code;
  }
}
