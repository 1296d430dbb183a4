import { spawnSync } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { REPO_ROOT } from './corpus.js';

/** The uid and gid of `nobody` (and Debian's `nogroup`): the user permission tests run as when they run as root. */
export const NOBODY = 65534;

/** A tool `asUnprivileged` needs is missing or not permitted here: the message says which, and the way out. */
export class UnprivilegedUnavailableError extends Error {
  override readonly name = 'UnprivilegedUnavailableError';
  readonly code = 'unprivileged-unavailable';
}

export function isUnprivilegedUnavailableError(error: unknown): error is UnprivilegedUnavailableError {
  return error instanceof UnprivilegedUnavailableError;
}

/**
 * A command prefix that runs a command without root's privileges, for tests that check a permission the kernel
 * enforces: as root (CI) the command runs as `nobody` (uid and gid 65534, no supplementary groups); as anyone else,
 * as that user, who is unprivileged already.
 *
 * nobody must reach the code it runs: `reach` (the repository and node by default). A clone under a private folder
 * (`mktemp -d` makes it 0700, and /root is 0700) has a folder on that path nobody cannot enter. Then the command runs
 * in a private mount namespace where each such folder is replaced by a tmpfs holding bind mounts of all its entries,
 * with the folder's owner and mode plus `o+x`: the same paths and the same files with their own permissions, only
 * enterable. The real folders are untouched, and the mounts vanish with the command.
 *
 * Throws `UnprivilegedUnavailableError` when `setpriv` does not work, or when a mount namespace is needed and not
 * permitted (no CAP_SYS_ADMIN, as in Docker's default profile), rather than letting the command die later.
 */
export function asUnprivileged(reach: string[] = [REPO_ROOT, process.execPath]): string[] {
  if (process.getuid?.() !== 0) return [];
  const drop = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'];
  requireWorking([...drop, 'true'], (problem) =>
    [
      `asUnprivileged: setpriv, which runs the permission tests as nobody, does not work (${problem}).`,
      'Install util-linux (Debian: apt-get install util-linux), or run the tests as a user other than root.',
    ].join(' '),
  );
  const closed = foldersClosedToNobody(reach);
  if (closed.length === 0) return drop;
  requireWorking(['unshare', '--mount', 'true'], (problem) =>
    [
      `asUnprivileged: nobody cannot enter ${closed.join(', ')} on the way to ${reach.join(', ')}, and opening`,
      `them for nobody needs a mount namespace, which is not permitted here (unshare --mount: ${problem}).`,
      'Clone the repository into a folder others can enter (every folder on the way at least o+x, so not under',
      '/root or a private temp folder), or run the tests with CAP_SYS_ADMIN (docker run --cap-add SYS_ADMIN).',
    ].join(' '),
  );
  return ['unshare', '--mount', 'sh', '-c', OPEN_FOLDERS, 'sh', ...closed, '--', ...drop];
}

/** Commands seen to work, by command and PATH: each is tried once, the first time a test needs it. */
const working = new Set<string>();

function requireWorking(probe: string[], explain: (problem: string) => string): void {
  const key = `${probe.join(' ')}\0${process.env.PATH ?? ''}`;
  if (working.has(key)) return;
  const [command, ...args] = probe;
  const run = spawnSync(command!, args, { encoding: 'utf8' });
  if (run.error || run.status !== 0) {
    const problem = run.error?.message ?? (run.stderr.trim() || `exit status ${run.status ?? run.signal}`);
    throw new UnprivilegedUnavailableError(explain(problem));
  }
  working.add(key);
}

/**
 * The folders on the way to `paths` that nobody may not enter, as real paths, outermost first. The kernel walks
 * the path as written up to a symlink and then the link's target, so both the written path's folders and the real
 * path's count; a closed folder is named by its real path, which is where the mount goes.
 */
function foldersClosedToNobody(paths: string[]): string[] {
  const closed = new Set<string>();
  for (const path of paths) {
    const written = chain(resolve(path)).map(realOrAsWritten);
    for (const folder of [...written, ...chain(realOrAsWritten(path))])
      if (!nobodyMayEnter(folder)) closed.add(folder);
  }
  return [...closed].sort((a, b) => a.split('/').length - b.split('/').length);
}

/** `path` (a folder, or a file's folder) and each folder above it, outermost first. */
function chain(path: string): string[] {
  const folders: string[] = [];
  for (let folder = isFolder(path) ? path : dirname(path); ; folder = dirname(folder)) {
    folders.unshift(folder);
    if (dirname(folder) === folder) return folders;
  }
}

function realOrAsWritten(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function isFolder(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** The kernel checks the owner's bits for the owner, the group's for a member, the others' for everyone else. */
function nobodyMayEnter(folder: string): boolean {
  const { mode, uid, gid } = statSync(folder);
  const bit = uid === NOBODY ? 0o100 : gid === NOBODY ? 0o010 : 0o001;
  return (mode & bit) !== 0;
}

/**
 * Run by root in the new mount namespace (private propagation, `unshare`'s default): `$1 … --` are the closed
 * folders, outermost first, and the rest is the command. Each folder's own content is reached through a bind mount
 * in a temp folder while the tmpfs covers it; that temp folder is removed before the command starts. The binds are
 * recursive (`--rbind`, and `umount -R` for the temp folder): a plain bind leaves out whatever is mounted below
 * (the repository on its own volume or tmpfs under /root), and the path would lead to an empty folder.
 */
const OPEN_FOLDERS = `set -e
hold=
trap '[ -z "$hold" ] || { umount -R -l "$hold" 2>/dev/null || :; rmdir "$hold"; }' EXIT
while [ "$1" != -- ]; do
  folder=$1
  shift
  hold=$(mktemp -d)
  mount --rbind "$folder" "$hold"
  mount -t tmpfs -o "mode=$(stat -c %a "$hold"),uid=$(stat -c %u "$hold"),gid=$(stat -c %g "$hold")" tmpfs "$folder"
  chmod o+x "$folder"
  for entry in "$hold"/* "$hold"/.[!.]* "$hold"/..?*; do
    name=\${entry##*/}
    if [ -L "$entry" ]; then
      cp -P "$entry" "$folder/$name"
    elif [ -d "$entry" ]; then
      mkdir "$folder/$name"
      mount --rbind "$entry" "$folder/$name"
    elif [ -e "$entry" ]; then
      : >"$folder/$name"
      mount --rbind "$entry" "$folder/$name"
    fi
  done
  umount -R "$hold"
  rmdir "$hold"
  hold=
done
shift
exec "$@"`;
