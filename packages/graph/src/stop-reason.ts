/** What a call cut off by the user's cancel is answered with (the default: an abort that does not say). */
export const CANCELLED_BY_USER = 'Cancelled by the user';
/** What a call cut off by closing the agent is answered with. */
export const STOPPED_BY_CLOSE = 'Stopped because birdie was closed';

/**
 * Why a run was stopped, as its abort signal's reason: `note` opens the answer of each call the stop cut off while it
 * ran ("Stopped because the server shut down"), so the model and the history say what happened. An abort whose reason
 * is not one of these is taken as the user's cancel.
 */
export class StopReason extends Error {
  readonly stopNote: string;

  constructor(message: string, note: string) {
    super(message);
    this.name = 'StopReason';
    this.stopNote = note;
  }
}

/** The note an abort's reason gives its cut-off calls (read by shape: a reason may come from another copy of this module). */
export function stopNoteOf(reason: unknown): string {
  const note = (reason as { stopNote?: unknown } | null | undefined)?.stopNote;
  return typeof note === 'string' && note.trim() !== '' ? note : CANCELLED_BY_USER;
}
