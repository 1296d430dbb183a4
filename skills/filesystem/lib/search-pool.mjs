// Searches run in worker threads so that a runaway regular expression can be stopped (a blocked event loop cannot
// be). Starting a worker costs far more than a typical search, so one idle worker is kept for the next call; a worker
// that is stopped mid-search (timeout, abort) is terminated and never reused.
import { Worker } from 'node:worker_threads';
import { FilesystemError } from './errors.mjs';

const WORKER_URL = new URL('./search-worker.mjs', import.meta.url);
/** @type {Worker[]} */
const idle = [];
const MAX_IDLE = 1;

function acquire() {
  return idle.pop() ?? new Worker(WORKER_URL);
}

/** @param {Worker} worker */
function release(worker) {
  worker.removeAllListeners('message');
  worker.removeAllListeners('error');
  if (idle.length < MAX_IDLE) {
    // An idle worker must not keep the host process alive.
    worker.unref();
    idle.push(worker);
  } else {
    void worker.terminate();
  }
}

/**
 * @param {Record<string, unknown>} request
 * @param {AbortSignal | undefined} signal
 * @param {number} deadlineMs
 * @returns {Promise<string>}
 */
export function runSearch(request, signal, deadlineMs) {
  signal?.throwIfAborted();
  const worker = acquire();
  worker.ref();
  return new Promise((resolvePromise, rejectPromise) => {
    const finish = () => {
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
    };
    const kill = (/** @type {unknown} */ error) => {
      finish();
      worker.removeAllListeners('message');
      void worker.terminate();
      rejectPromise(error);
    };
    const onAbort = () => kill(signal?.reason ?? new Error('aborted'));
    const deadline = setTimeout(
      () =>
        kill(
          new FilesystemError(
            'search-timeout',
            'The search took too long; narrow the path or simplify the pattern.',
          ),
        ),
      deadlineMs,
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once(
      'message',
      (/** @type {{ ok: boolean; text?: string; code?: string; message?: string }} */ reply) => {
        finish();
        release(worker);
        if (reply.ok) resolvePromise(reply.text ?? '');
        else
          rejectPromise(
            new FilesystemError(reply.code ?? 'search-failed', reply.message ?? 'The search failed.'),
          );
      },
    );
    worker.once('error', kill);
    worker.postMessage(request);
  });
}
