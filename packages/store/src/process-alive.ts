import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Whether the process `pid` on this machine is certainly gone: no such process (ESRCH), or a zombie
 * (killed, not reaped yet: it holds its pid but will never write again). A process of another user
 * answers EPERM and counts as alive. A reused pid looks alive; the lease's expiry covers that case.
 */
export function processGone(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: unknown }).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.charAt(stat.lastIndexOf(')') + 2) === 'Z';
  } catch {
    return false;
  }
}

/**
 * Where this process's pid means something: the machine's boot (a reboot reuses pids) and the pid
 * namespace (containers sharing a host name do not share pids). Another process's pid is checked
 * only when its lease row carries the same scope; elsewhere, expiry decides.
 */
export function pidScope(): string {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `${boot}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return `host:${hostname()}`;
  }
}
