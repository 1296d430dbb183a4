// Changes to one file are made one after another. The agent runs a round's tool calls side by side, and edit_file
// and append_file read the file, then write it whole: two such calls on one file at once would both read the old
// text, and the second rename would drop the first change. Calls wait here, per real path, for the one before them.
// This holds within one process, which is where birdie runs its own tools.

/** @type {Map<string, Promise<unknown>>} the last change queued for each path */
const queues = new Map();

/**
 * Runs `change` once every change queued before it for `path` has settled.
 * @template T
 * @param {string} path the real path of the file
 * @param {() => Promise<T>} change
 * @returns {Promise<T>}
 */
export function oneAtATime(path, change) {
  const before = queues.get(path) ?? Promise.resolve();
  const result = before.then(change, change);
  const settled = result.then(
    () => undefined,
    () => undefined,
  );
  queues.set(path, settled);
  // The map keeps only paths with a change in flight.
  settled.then(() => {
    if (queues.get(path) === settled) queues.delete(path);
  });
  return result;
}
