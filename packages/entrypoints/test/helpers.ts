import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];

// Registered while the test file is collected: hooks added later, from inside beforeAll, would never run.
afterAll(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A real temporary directory, removed after the test file. */
export async function tempDir(prefix = 'birdie-entrypoints-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/**
 * A test's time budget, scaled to its work: `runs` child processes (or other units of work) at `perRunMs` each, on
 * top of a fixed start-up allowance. A test that spawns hundreds of processes needs a budget that grows with them, so
 * a loaded two-core machine slows it down without failing it; the assertions, not the clock, decide the result.
 */
export function budgetFor(runs: number, perRunMs = 400, baseMs = 20_000): number {
  return baseMs + runs * perRunMs;
}

/** Runs `task` over `items` with at most `limit` in flight (the CI machine has two cores). */
export async function inBatches<T>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<void>,
) {
  for (let start = 0; start < items.length; start += limit) {
    await Promise.all(items.slice(start, start + limit).map((item, k) => task(item, start + k)));
  }
}

const PF_EXITING = 0x4;

/**
 * Whether a /proc/PID/stat line describes a process that can still run: not a zombie, and not already exiting.
 * (A killed PID namespace's init stays "exiting" until the host's init has reaped the namespace's other zombies;
 * it never runs again.)
 */
function running(stat: string): boolean {
  if (!stat) return false;
  // fields after the parenthesised command name: state ppid pgrp session tty_nr tpgid flags …
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] !== 'Z' && fields[0] !== 'X' && (Number(fields[6]) & PF_EXITING) === 0;
}

/** Processes that can still run (no zombies, none exiting) whose process group is `pgid`, read from /proc. */
export async function livingInGroup(pgid: number): Promise<number[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const living: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (running(stat) && Number(fields[2]) === pgid) living.push(Number(entry));
  }
  return living;
}

export async function isAlive(pid: number): Promise<boolean> {
  const { readFile } = await import('node:fs/promises');
  return running(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''));
}

export function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
