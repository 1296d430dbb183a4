import {
  KILL_WAIT_MS,
  killTree,
  livingTrees,
  type ProcessTree,
  signalTree,
  waitGone,
} from './process-tree.js';

/** A tree this package started and has not seen end. */
export interface TrackedTree extends ProcessTree {
  /** Told first when `stopAllProcesses` ends it, so the call reports a cancellation, not a signal. */
  onStop?: () => void;
  /** Settles once the call that started it has settled (a tool run), so its caller hears of the stop first. */
  settled?: Promise<unknown>;
}

export interface StopAllOptions {
  /** How long the trees get to end after SIGTERM before SIGKILL. Default 2 000 ms. */
  graceMs?: number;
}

export interface StopAllSummary {
  /** Process trees that were running when the call began. */
  stopped: number;
  /** Of those, the ones that were still alive after `graceMs` and got SIGKILL. */
  killed: number;
}

const tracked = new Set<TrackedTree>();
let stopping = 0;
let exitHook = false;

/** Kills what is still tracked when the process exits anyway (synchronous: only signals are possible there). */
function killAllNow(): void {
  for (const tree of tracked) killTree(tree);
}

export function track(tree: TrackedTree): () => void {
  tracked.add(tree);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', killAllNow);
  }
  return () => {
    tracked.delete(tree);
  };
}

/** True while `stopAllProcesses` runs: no new child starts then. */
export function isStopping(): boolean {
  return stopping > 0;
}

/**
 * Ends every child process tree this package started and that is still alive — running tool calls (which reject
 * with `aborted`), what they left behind, and servers from `wrapServerCommand`: SIGTERM to each, SIGKILL to those
 * left after `graceMs`, and resolves when all are gone. Children asked for while it runs are refused (`aborted`).
 * Meant for an application that is about to exit.
 */
/** How long `stopAllProcesses` waits for stopped tool runs to settle once their processes are gone. */
const SETTLE_WAIT_MS = 1_000;

export async function stopAllProcesses(options: StopAllOptions = {}): Promise<StopAllSummary> {
  const graceMs = options.graceMs ?? 2_000;
  stopping++;
  try {
    const known = [...tracked].filter((tree) => tree.pid() !== undefined);
    const trees = await livingTrees(known);
    for (const tree of known) if (!trees.includes(tree)) tracked.delete(tree);
    for (const tree of trees) tree.onStop?.();
    for (const tree of trees) signalTree(tree, 'SIGTERM');
    const stubborn = await waitGone(trees, graceMs);
    for (const tree of stubborn) killTree(tree);
    await waitGone(stubborn, KILL_WAIT_MS);
    // The tool runs it stopped report `aborted` to their callers before this resolves (an application that exits
    // right after would otherwise cut those reports off): their promises settle, then one macrotask lets every
    // handler queued on them run.
    await Promise.race([
      Promise.all(trees.map((tree) => tree.settled?.catch(() => undefined))),
      new Promise((resolve) => setTimeout(resolve, SETTLE_WAIT_MS).unref?.()),
    ]);
    await new Promise((resolve) => setImmediate(resolve));
    for (const tree of trees) tracked.delete(tree);
    return { stopped: trees.length, killed: stubborn.length };
  } finally {
    stopping--;
  }
}
