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
  const worker = idle.pop();
  if (!worker) return new Worker(WORKER_URL);
  worker.removeAllListeners('error');
  worker.removeAllListeners('exit');
  return worker;
}

/** @param {Worker} worker */
function release(worker) {
  worker.removeAllListeners('message');
  worker.removeAllListeners('error');
  worker.removeAllListeners('exit');
  if (idle.length < MAX_IDLE) {
    // An idle worker must not keep the host process alive, and one that dies while idle is simply forgotten
    // (an 'error' event with no listener would crash the host).
    worker.unref();
    const forget = () => {
      const index = idle.indexOf(worker);
      if (index !== -1) idle.splice(index, 1);
    };
    worker.once('error', forget);
    worker.once('exit', forget);
    idle.push(worker);
  } else {
    void worker.terminate();
  }
}

/**
 * @typedef {{ ok: boolean; text?: string; code?: string; message?: string }} SearchReply
 */

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
    let settled = false;
    /** @param {() => void} outcome */
    const settle = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    /** A worker stopped mid-search is never reused. @param {unknown} error */
    const kill = (error) =>
      settle(() => {
        worker.removeAllListeners('message');
        void worker.terminate();
        rejectPromise(error);
      });
    const onAbort = () => kill(signal?.reason ?? new Error('aborted'));
    const timeout = new FilesystemError(
      'search-timeout',
      'The search took too long; narrow the path or simplify the pattern.',
    );
    const deadline = setTimeout(() => kill(timeout), deadlineMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (/** @type {SearchReply} */ reply) =>
      settle(() => {
        release(worker);
        if (reply.ok) resolvePromise(reply.text ?? '');
        else
          rejectPromise(
            new FilesystemError(reply.code ?? 'search-failed', reply.message ?? 'The search failed.'),
          );
      }),
    );
    worker.once('error', kill);
    worker.once('exit', (code) =>
      kill(new FilesystemError('search-failed', `The search stopped unexpectedly (exit code ${code}).`)),
    );
    worker.postMessage(request);
  });
}
