import { readFile } from 'node:fs/promises';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
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
