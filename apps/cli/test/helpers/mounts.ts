import { spawn } from 'node:child_process';

// Disks and permissions made real for a test, even as root (CI): root writes into a `chmod 555` folder, so a
// read-only folder is a read-only bind mount, and a full disk a small tmpfs, both in a private mount namespace that
// only the test's commands enter; or the command runs as another user.

export interface MountNamespace {
  /** A command prefix that runs a command inside the namespace, in `cwd`. */
  wrap(cwd: string): string[];
  close(): void;
}

/**
 * A private mount namespace where `setup` (a `sh -c` script; `$1`… are `args`) has run, kept alive by a sleeping
 * process until `close()`. Mounts made there are invisible everywhere else and vanish with it.
 */
export async function mountNamespace(setup: string, args: string[]): Promise<MountNamespace> {
  const holder = spawn(
    'unshare',
    ['-m', 'sh', '-c', `${setup} && echo ready && exec sleep 600`, 'sh', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  holder.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('ready')) resolve();
    });
    holder.on('exit', (code) => reject(new Error(`mount namespace setup failed (${code}): ${stderr}`)));
  });
  return {
    wrap: (cwd) => ['nsenter', `--mount=/proc/${holder.pid}/ns/mnt`, `--wd=${cwd}`, '--'],
    close: () => holder.kill('SIGKILL'),
  };
}

/** `dir` as an empty tmpfs of `size` (e.g. `1m`). */
export function smallDisk(dir: string, size: string): Promise<MountNamespace> {
  return mountNamespace(`mount -t tmpfs -o size=${size},mode=0700 tmpfs "$1"`, [dir]);
}

/** `dir` bind-mounted onto itself read-only. */
export function readOnlyFolder(dir: string): Promise<MountNamespace> {
  return mountNamespace('mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" "$1"', [dir]);
}

/** A command prefix that runs a command under a file-size limit of `blocks` 512-byte blocks (`ulimit -f` of sh). */
export function fileSizeLimit(blocks: number): string[] {
  return ['sh', '-c', `ulimit -f ${blocks} && exec "$@"`, 'sh'];
}
