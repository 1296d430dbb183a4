import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { EntrypointError } from './errors.js';
import { baseArgs, configuredHidden } from './sandbox.js';
import { protectedPathsOf, protectWorkspace } from './sandbox-protected.js';
import { prepareLedger } from './sandbox-stand-in-ledger.js';
import { SYSTEM_FOLDERS } from './sandbox-system.js';

/** What one sandboxed call may see and change. */
export interface SandboxRequest {
  /** The working directory: the only place the call can write (besides private temp folders). */
  cwd: string;
  /** The child's environment (its BIRDIE_HOME, HOME and TMPDIR are read). */
  env: Record<string, string>;
  network: boolean;
  /** The skill folder: kept readable even where it lies inside the birdie folder (user skills do). */
  skillDir?: string;
  /**
   * Folders holding the program itself, shown read-only where the system folders do not (a Node.js installed by nvm
   * under the hidden home runs a sandboxed `node:` tool).
   */
  programDirs?: readonly string[];
}

/** A folder the sandbox hides (an empty, private tmpfs over it), or a file it replaces with /dev/null. */
interface Hidden {
  path: string;
  directory: boolean;
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};
const within = (root: string, path: string) => root === path || inside(root, path);

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The birdie folders of this process and of the child: `$BIRDIE_HOME` and `~/.birdie` (for both HOME values and
 * the account's home), and what the application named with `configureSandbox(…, { hide })`. They hold the user's config (API keys), sessions and grants: a sandboxed tool sees none of it.
 */
export function birdieFolders(env: Record<string, string>): string[] {
  const candidates = [
    ...configuredHidden(),
    process.env.BIRDIE_HOME,
    env.BIRDIE_HOME,
    process.env.HOME && join(process.env.HOME, '.birdie'),
    env.HOME && join(env.HOME, '.birdie'),
    join(homedir(), '.birdie'),
  ];
  return [...new Set(candidates.filter((p): p is string => !!p && isAbsolute(p)).map((p) => resolve(p)))];
}

function hiddenOf(env: Record<string, string>): Hidden[] {
  const seen = new Map<string, Hidden>();
  for (const path of birdieFolders(env)) {
    const target = real(path);
    if (!target || target === '/') continue;
    seen.set(target, { path: target, directory: statSync(target).isDirectory() });
  }
  return [...seen.values()];
}

/**
 * How one path is shown in the sandbox. The deepest mount that holds a path decides for it; of two on the same path,
 * the later kind in `KINDS` wins, so a hidden path is hidden whatever else names it.
 */
interface Mount {
  path: string;
  kind: 'read-write' | 'read-only' | 'hidden';
  /** For `hidden`: an empty tmpfs over a folder, /dev/null over a file. */
  directory?: boolean;
}
const KINDS: readonly Mount['kind'][] = ['read-write', 'read-only', 'hidden'];
const depth = (path: string) => path.split('/').length;

/** Mounts in the order bubblewrap must make them: a path's parent before it, and the winning kind last. */
function ordered(mounts: Mount[]): Mount[] {
  return [...mounts].sort(
    (a, b) => depth(a.path) - depth(b.path) || KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind),
  );
}

/** Where a path lands among `mounts`: the kind of the deepest one that holds it, `hidden` when none does. */
function accessAmong(mounts: Mount[], path: string): Mount['kind'] {
  let best: Mount | undefined;
  for (const mount of mounts) {
    if (!within(mount.path, path)) continue;
    if (
      !best ||
      depth(mount.path) > depth(best.path) ||
      (depth(mount.path) === depth(best.path) && KINDS.indexOf(mount.kind) > KINDS.indexOf(best.kind))
    ) {
      best = mount;
    }
  }
  return best?.kind ?? 'hidden';
}

/** What a sandboxed call of `request` sees, before any stand-in is made (see `prepareSandbox`). */
function viewOf(request: SandboxRequest): { cwd: string; skillDir?: string; mounts: Mount[] } {
  const cwd = real(request.cwd);
  if (!cwd || !statSync(cwd).isDirectory()) {
    throw new EntrypointError(
      'spawn-failed',
      `could not start the sandbox: working directory ${request.cwd} does not exist`,
    );
  }
  const hidden = hiddenOf(request.env);
  if (hidden.some((h) => h.path === cwd)) {
    throw new EntrypointError(
      'sandbox-unavailable',
      `a sandboxed tool cannot run with ${request.cwd} as its working directory: it is the birdie folder, which the sandbox hides (it holds your config and sessions); choose another working directory`,
    );
  }
  const skillDir = request.skillDir && real(request.skillDir);
  const mounts: Mount[] = [{ path: cwd, kind: 'read-write' }];
  // The skill folder is read (python: imports from it) even where it lies under /tmp, the home or a birdie folder.
  if (skillDir && skillDir !== '/' && !within(cwd, skillDir))
    mounts.push({ path: skillDir, kind: 'read-only' });
  for (const dir of programDirs(request.programDirs, cwd)) mounts.push({ path: dir, kind: 'read-only' });
  // the tool's HOME, this process's and the account's: a tool must not see the user's whichever it is told
  const homes = new Set(
    [request.env.HOME, process.env.HOME, homedir()].map((home) => home && isAbsolute(home) && real(home)),
  );
  for (const home of homes) if (home) mounts.push(...homeView(home, cwd));
  // What would show of a birdie folder or a hidden file is replaced by an empty one.
  const shown = [...systemRoots(), cwd, ...(skillDir ? [skillDir] : [])];
  for (const h of hidden) {
    if (shown.some((root) => within(root, h.path))) mounts.push({ ...h, kind: 'hidden' });
  }
  return { cwd, ...(skillDir ? { skillDir } : {}), mounts: withoutNestedHidden(mounts) };
}

/** A hidden path inside another one shows nothing more; mounted anyway, its empty stand-in would show its name. */
function withoutNestedHidden(mounts: Mount[]): Mount[] {
  return mounts.filter(
    (m) =>
      m.kind !== 'hidden' ||
      !mounts.some(
        (outer) =>
          outer.kind === 'hidden' &&
          inside(outer.path, m.path) &&
          !mounts.some(
            (between) =>
              between.kind !== 'hidden' && inside(outer.path, between.path) && within(between.path, m.path),
          ),
      ),
  );
}

/**
 * bubblewrap's arguments for one call, before `--`, and a `release` to call once the call's processes are gone (it
 * removes the stand-ins `protectWorkspace` made). The sandbox shows the system folders read-only (`systemArgs`), the
 * working directory read-write — its protected paths (`PROTECTED_WORKSPACE_PATHS`) read-only —, the skill folder
 * read-only, a private /tmp (and TMPDIR), and the tool's `$HOME` as a private, empty folder; nothing else of the
 * host: not the user's home, not a config file, not /run or any other folder where a Unix socket could be. The birdie
 * folders and whatever the application hides are replaced by empty ones where they would show, over any other rule.
 * A working directory that shows the home folder shows it read-only, its dot entries hidden (see `homeView`). A new
 * PID (and IPC, UTS, cgroup, user) namespace; no network namespace of the host's unless `network` (then
 * /etc/resolv.conf's target is shown too, where it lies outside the system folders).
 */
export function prepareSandbox(request: SandboxRequest): {
  args: string[];
  /** Whether `release` would change the working directory now, so the call's processes must be gone first. */
  removes: () => boolean;
  release: () => void;
} {
  // Before the view: the birdie home the ledger lies in then exists, and is hidden like the rest of it.
  prepareLedger();
  const { cwd, mounts } = viewOf(request);
  const args = baseArgs(request.network);
  if (request.network) args.push(...resolverArgs());
  const home = privateHome(request.env.HOME, cwd);
  if (home) args.push('--tmpfs', home);
  const tmpdir = privateTmpdir(request.env.TMPDIR, cwd);
  if (tmpdir) args.push('--tmpfs', tmpdir);
  // A protected path that is hidden, or read-only already (the home's top level), needs no bind and no stand-in.
  const protectedPaths = protectWorkspace(cwd, (path) => accessAmong(mounts, path) !== 'read-write');
  const all = [...mounts, ...protectedPaths.paths.map((path): Mount => ({ path, kind: 'read-only' }))];
  for (const mount of ordered(all)) {
    if (mount.kind === 'read-write') args.push('--bind', mount.path, mount.path);
    else if (mount.kind === 'read-only') args.push('--ro-bind', mount.path, mount.path);
    else if (mount.directory) args.push('--tmpfs', mount.path);
    else args.push('--ro-bind', '/dev/null', mount.path);
  }
  args.push('--chdir', request.cwd);
  return { args, removes: protectedPaths.removes, release: protectedPaths.release };
}

/**
 * How a sandboxed call of `request` would see each path of the host, for code that acts for the tool outside the
 * sandbox (the application's own in-process file tools under it): `read-write`, `read-only` (a protected path, the
 * home's top level) or `hidden`. The same layout as `prepareSandbox`'s, protected paths included, without stand-ins.
 */
export function sandboxAccess(request: SandboxRequest): ((path: string) => Mount['kind']) & {
  /** The hidden paths (real paths), for a tool that walks a tree and skips them. */
  hidden: readonly string[];
} {
  const { cwd, mounts } = viewOf(request);
  const hiddenHere = (path: string) => accessAmong(mounts, path) === 'hidden';
  const all = [
    ...mounts,
    ...protectedPathsOf(cwd)
      .filter((path) => !hiddenHere(path))
      .map((path): Mount => ({ path, kind: 'read-only' })),
  ];
  const access = (path: string) => {
    const target = real(path) ?? resolve(path);
    const lexical = resolve(path);
    const kinds = [accessAmong(all, lexical), accessAmong(all, target)];
    return kinds.includes('hidden') ? 'hidden' : kinds.includes('read-only') ? 'read-only' : 'read-write';
  };
  return Object.assign(access, { hidden: mounts.filter((m) => m.kind === 'hidden').map((m) => m.path) });
}

/** The program folders not already shown by the system folders or the working directory, as real paths. */
function programDirs(dirs: readonly string[] | undefined, cwd: string): string[] {
  return (dirs ?? [])
    .map(real)
    .filter((dir): dir is string => !!dir && dir !== '/' && !within(cwd, dir))
    .filter((dir) => !systemRoots().some((root) => within(root, dir)));
}

let roots: string[] | undefined;
/** The real paths of the system folders shown (a symlinked /bin is /usr/bin); read from the host once. */
function systemRoots(): string[] {
  roots ??= SYSTEM_FOLDERS.map(real).filter((p): p is string => !!p);
  return roots;
}

/**
 * Whether `path` (a folder on PATH) is there in a sandbox of `request`: the sandbox starts its program from the first
 * folder on PATH that it shows, so a program under a hidden home (pyenv's shims, ~/.local/bin) gives way to the
 * system's.
 */
export function shownInSandbox(request: SandboxRequest): (path: string) => boolean {
  let access: ((path: string) => Mount['kind']) | undefined;
  return (path) => {
    if (!isAbsolute(path)) return true;
    const target = real(path);
    if (!target) return false;
    if (systemRoots().some((root) => within(root, target))) return true;
    access ??= sandboxAccess(request);
    return access(target) !== 'hidden';
  };
}

/** The tool's HOME gets an empty tmpfs of its own (caches, dotfiles), unless the working directory shows it. */
function privateHome(home: string | undefined, cwd: string): string | undefined {
  if (!home || !isAbsolute(home)) return undefined;
  const path = resolve(home);
  if (path === '/' || within('/tmp', path) || within(path, cwd) || inside(cwd, path)) return undefined;
  // bubblewrap could not make a mount point for it inside a read-only system folder
  if (!real(path) && systemRoots().some((root) => within(root, path))) return undefined;
  return path;
}

/**
 * The home folder, when the working directory shows it (the working directory is that home, or holds it): a tool
 * works on the user's files there, not on the home's own configuration. So the home's top level is read-only (no
 * `.bashrc`, `.profile`, `.gitconfig` can be created or replaced: shells and git run them later, unconfined), its
 * other entries stay read-write (their contents are the workspace), and every dot entry (shell start-up files and
 * histories, `.gitconfig`, `.ssh`, `.aws`, `.config`, `.local`, tokens) is hidden: an empty folder, an empty file.
 * A dot entry that is a symbolic link hides what it leads to, where that is shown.
 */
function homeView(root: string, cwd: string): Mount[] {
  if (root === '/' || !within(cwd, root)) return [];
  const mounts: Mount[] = [{ path: root, kind: 'read-only' }];
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return mounts;
  }
  for (const entry of entries) {
    const path = join(root, entry.name);
    if (!entry.name.startsWith('.')) {
      // a link stays a link in the read-only home: what it leads to is shown only where something else shows it
      if (!entry.isSymbolicLink()) mounts.push({ path, kind: 'read-write' });
      continue;
    }
    const target = entry.isSymbolicLink() ? real(path) : path;
    if (!target || !within(cwd, target)) continue;
    try {
      mounts.push({ path: target, kind: 'hidden', directory: statSync(target).isDirectory() });
    } catch {
      // gone meanwhile
    }
  }
  return mounts;
}

/** With the network, /etc/resolv.conf often points into /run (systemd-resolved): that one file is shown, no socket. */
function resolverArgs(): string[] {
  const target = real('/etc/resolv.conf');
  if (!target || systemRoots().some((root) => within(root, target))) return [];
  return ['--ro-bind', target, target];
}
/** TMPDIR gets a private tmpfs too when it names a folder of its own (not /tmp's, not the working directory's). */
function privateTmpdir(tmpdir: string | undefined, cwd: string): string | undefined {
  if (!tmpdir || !isAbsolute(tmpdir)) return undefined;
  const target = real(tmpdir);
  if (!target || target === '/' || within('/tmp', target) || within(target, cwd) || inside(cwd, target)) {
    return undefined;
  }
  try {
    return statSync(target).isDirectory() ? target : undefined;
  } catch {
    return undefined;
  }
}
