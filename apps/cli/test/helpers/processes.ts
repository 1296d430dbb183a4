import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether `pid` still runs. A zombie does not: it has ended and only waits to be reaped by its parent — for an orphan,
 * PID 1, which may take its time (the VM's init here lets zombies sit for a moment).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return stateOf(readStat(pid)) !== 'Z';
}

function readStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}

/** The state letter of a `/proc/PID/stat` line; it follows the command name in brackets, which may hold anything. */
function stateOf(stat: string): string {
  const end = stat.lastIndexOf(')');
  return end < 0 ? '' : stat.slice(end + 2, end + 3);
}

/** The pid a test tool writes to `file` once it runs; 0 when it never appears within ~10 s. */
export async function readPidFile(file: string): Promise<number> {
  for (let i = 0; i < 400; i++) {
    const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
    if (pid) return pid;
    await pause(25);
  }
  return 0;
}

/**
 * Waits up to ~5 s for `pid` to end; true when it is still alive then. A survivor is SIGKILLed so that a failing test
 * leaves nothing behind.
 */
export async function survives(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && isAlive(pid); i++) await pause(50);
  const alive = isAlive(pid);
  if (alive) process.kill(pid, 'SIGKILL');
  return alive;
}

/**
 * Live processes (zombies left out) whose environment holds `entry`, e.g. `BIRDIE_SESSION_DIR=/…/sessions/S`: every
 * process of a session's tools carries it, grandchildren included, and birdie itself does not.
 */
export async function processesWithEnv(entry: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const found: number[] = [];
  for (const pid of pids) {
    if (pid === process.pid) continue;
    const [environ, stat] = await Promise.all([
      readFile(`/proc/${pid}/environ`).catch(() => undefined),
      readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''),
    ]);
    if (!environ?.toString('utf8').split('\0').includes(entry)) continue;
    const state = stateOf(stat);
    if (state !== 'Z' && state !== '') found.push(pid);
  }
  return found;
}
