import { lstatSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The host folders every sandbox shows, read-only: the system's programs, libraries and configuration. Nothing else of
 * the host is mounted — no home folder, no /var, /srv, /mnt, /media, /run, /sys — so no Unix socket outside the
 * working directory (an agent's, a database's, Docker's) is there to connect to: a read-only bind still lets a
 * process `connect()` to a socket in it. Each is bound as the host has it: a folder, or a symlink (merged /usr).
 */
export const SYSTEM_FOLDERS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
];

/**
 * Secrets in the system folders, replaced by empty ones: password hashes (readable when birdie runs as root, which
 * keeps its uid in the sandbox), TLS and SSH host private keys.
 */
const SYSTEM_SECRETS: readonly string[] = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/ssl/private',
];

let cached: readonly string[] | undefined;

/** bubblewrap's arguments for the system folders and their hidden secrets; read from the host once per process. */
export function systemArgs(): readonly string[] {
  cached ??= [...folderArgs(), ...secretArgs()];
  return cached;
}

function folderArgs(): string[] {
  const args: string[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    try {
      const stats = lstatSync(folder);
      if (stats.isSymbolicLink()) args.push('--symlink', readlinkSync(folder), folder);
      else if (stats.isDirectory()) args.push('--ro-bind', folder, folder);
    } catch {
      // not on this system (lib32, libx32, opt)
    }
  }
  return args;
}

function secretArgs(): string[] {
  const args: string[] = [];
  const hostKeys = (() => {
    try {
      return readdirSync('/etc/ssh')
        .filter((name) => /^ssh_host_.*_key$/.test(name))
        .map((name) => join('/etc/ssh', name));
    } catch {
      return [];
    }
  })();
  for (const path of [...SYSTEM_SECRETS, ...hostKeys]) {
    try {
      if (statSync(path).isDirectory()) args.push('--tmpfs', path);
      else args.push('--ro-bind', '/dev/null', path);
    } catch {
      // absent here
    }
  }
  return args;
}
