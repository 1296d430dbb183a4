import { readFileSync } from 'node:fs';

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
