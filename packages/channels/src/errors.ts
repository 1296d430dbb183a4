/** Stable codes of `ChannelError`. */
export type ChannelErrorCode =
  /** A platform is configured without what its mode needs (a token, a webhook secret). */
  | 'channel-config'
  /** No platform is configured at all. */
  | 'no-channels'
  /** The platform's API refused a call (bad token, network). */
  | 'platform-failed'
  /** A shared file's address is not on the platform's own file host: it is not downloaded (the token would go with it). */
  | 'foreign-file-address'
  /** A folder an upload would be saved in is a symlink, or leads outside the workspace. */
  | 'unsafe-upload-folder';

/** A failure of a channel at start or while it runs; `code` says which. */
export class ChannelError extends Error {
  readonly code: ChannelErrorCode;
  constructor(code: ChannelErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChannelError';
    this.code = code;
  }
}

export function isChannelError(error: unknown): error is ChannelError {
  return error instanceof ChannelError;
}
