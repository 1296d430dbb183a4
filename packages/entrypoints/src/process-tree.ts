import { readdir, readFile } from 'node:fs/promises';

/** A process tree this package started: a process group (its leader's pid) or, without one, a single pid. */
export interface ProcessTree {
  /** The group's id / the pid, or undefined while it is not known yet (a server before its wrapper ran). */
  pid(): number | undefined;
  group: boolean;
  /** The leader is the guard's helper, which kills the whole tree on SIGUSR2 (escapees included). */
  guarded?: boolean;
}

export function signalTree(tree: ProcessTree, signal: NodeJS.Signals | 0): boolean {
  const pid = tree.pid();
  if (pid === undefined) return false;
  try {
    process.kill(tree.group ? -pid : pid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** How long the guard's helper gets to kill its tree before the group gets SIGKILL anyway. */
const HELPER_KILL_MS = 1_000;

/** The SIGKILL step of an escalation. */
export function killTree(tree: ProcessTree): void {
  const pid = tree.pid();
  if (pid === undefined) return;
  if (tree.guarded) {
    try {
      process.kill(pid, 'SIGUSR2');
      // Should the helper be stuck, the group still gets its SIGKILL.
      setTimeout(() => signalTree(tree, 'SIGKILL'), HELPER_KILL_MS).unref();
      return;
    } catch {}
  }
  signalTree(tree, 'SIGKILL');
}

const PF_EXITING = 0x4;

/**
 * Pids and process groups that still have a living member. Zombies and tasks already exiting do not count: they
 * can never run code again, and how soon they are reaped depends on the host's init, not on us.
 * Undefined where /proc cannot be read (not Linux).
 */
async function living(exiting: boolean): Promise<{ pids: Set<number>; groups: Set<number> } | undefined> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return undefined;
  }
  const pids = new Set<number>();
  const groups = new Set<number>();
  await Promise.all(
    entries
      .filter((entry) => /^\d+$/.test(entry))
      .map(async (entry) => {
        const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
        if (!stat) return;
        // after the parenthesised command name: state ppid pgrp session tty_nr tpgid flags …
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const flags = Number(fields[6]);
        if (fields[0] === 'Z' || fields[0] === 'X' || (!exiting && flags & PF_EXITING)) return;
        pids.add(Number(entry));
        groups.add(Number(fields[2]));
      }),
  );
  return { pids, groups };
}

/**
 * The trees among `trees` that still have a living process. With `exiting`, a task already exiting still counts: a
 * sandbox's init is exiting while it kills the rest of its PID namespace, and is a zombie only once they are gone.
 */
export async function livingTrees<T extends ProcessTree>(trees: readonly T[], exiting = false): Promise<T[]> {
  // kill(…, 0) answers for most trees at once; /proc only settles the ones left with zombies or exiting tasks.
  const maybe = trees.filter((tree) => signalTree(tree, 0));
  if (maybe.length === 0) return [];
  const now = await living(exiting);
  if (!now) return maybe;
  return maybe.filter((tree) => {
    const pid = tree.pid()!;
    return tree.group ? now.groups.has(pid) : now.pids.has(pid);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the trees still living when all are gone or `ms` has passed (`exiting`: see `livingTrees`). */
export async function waitGone<T extends ProcessTree>(
  trees: readonly T[],
  ms: number,
  exiting = false,
): Promise<T[]> {
  const deadline = Date.now() + ms;
  let left = await livingTrees(trees, exiting);
  for (let pause = 2; left.length > 0 && Date.now() < deadline; pause = Math.min(pause * 2, 25)) {
    await sleep(Math.min(pause, Math.max(1, deadline - Date.now())));
    left = await livingTrees(left, exiting);
  }
  return left;
}

/** After SIGKILL, how long to wait for the kernel to finish; only a task stuck in the kernel takes longer. */
export const KILL_WAIT_MS = 2_000;

/** TERM the tree, KILL what is left after `graceMs`, resolve when it is gone. Resolves to true when KILL was needed. */
export async function endTree(tree: ProcessTree, graceMs: number): Promise<boolean> {
  if (!signalTree(tree, 'SIGTERM')) return false;
  if ((await waitGone([tree], graceMs)).length === 0) return false;
  killTree(tree);
  await waitGone([tree], KILL_WAIT_MS);
  return true;
}
