import type { StreamEvent } from './turn-recorder.js';

/** The store's failures that end a turn without being its fault: the database, not the request. */
const STORE_FAILURES: Record<string, string> = {
  unavailable: 'the database could not be reached',
  locked: 'the database stayed locked by another process',
  'read-only': 'the database is read-only',
  'disk-full': 'the disk holding the database is full',
  closed: 'the store was closed (the server is stopping)',
};

/**
 * The `error` event of a turn the runtime ended with status `error` without sending one (a store call of the turn
 * failed: the runtime puts it in its summary, not in the stream). The stream promises an `error` event before
 * `done` status `error`. Worded from the failure's code only: the runtime's message names the database (its address,
 * its file), which is the operator's to read, in the run log and the server's log.
 */
export function turnFailureEvent(errorCode: string | undefined): StreamEvent {
  const store = errorCode === undefined ? undefined : STORE_FAILURES[errorCode];
  if (store === undefined)
    return {
      type: 'error',
      error: { code: 'internal', message: 'the turn failed; the run log says why' },
    };
  return {
    type: 'error',
    error: {
      code: 'unavailable',
      message: `${store}, so the turn ended; the steps it completed before are in the session; events sent without an id were not recorded (a replay goes without them); try again once the server is ready`,
    },
  };
}
