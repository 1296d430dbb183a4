import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

let setsidPath: string | null | undefined;

/** `setsid` makes the server the leader of its own process group, so one signal reaches its children too. */
function findSetsid(): string | null {
  if (setsidPath !== undefined) return setsidPath;
  setsidPath = null;
  if (process.platform === 'win32') return null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'setsid');
    try {
      accessSync(candidate, constants.X_OK);
      setsidPath = candidate;
      break;
    } catch {}
  }
  return setsidPath;
}

/**
 * Wraps a stdio server command so that (1) its pid lands in `pidFile` before anything else happens — the MCP client
 * only exposes the pid after a successful handshake, and a hanging server must be killable too — and (2) it runs in
 * its own process group when `setsid` exists. `sh` execs `setsid`, which execs the server in place: one pid throughout.
 */
export function wrapCommand(
  command: string,
  args: string[],
  pidFile: string,
): { command: string; args: string[] } {
  if (process.platform === 'win32') return { command, args };
  const setsid = findSetsid();
  const script = setsid ? 'echo $$ >"$0"; exec "$SETSID_BIN" "$@"' : 'echo $$ >"$0"; exec "$@"';
  const prefix = setsid ? [`SETSID_BIN=${setsid}`] : [];
  return { command: '/usr/bin/env', args: [...prefix, '/bin/sh', '-c', script, pidFile, command, ...args] };
}

export function groupAlive(pid: number, group: boolean): boolean {
  try {
    process.kill(group ? -pid : pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function signalGroup(pid: number, signal: NodeJS.Signals, group: boolean): void {
  try {
    process.kill(group ? -pid : pid, signal);
  } catch {}
}

/** TERM the group, wait up to `graceMs` for it to vanish, then KILL. */
export async function endGroup(pid: number, group: boolean, graceMs = 1000): Promise<void> {
  signalGroup(pid, 'SIGTERM', group);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pid, group)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  signalGroup(pid, 'SIGKILL', group);
}

export function usesProcessGroups(): boolean {
  return findSetsid() !== null;
}
