import { lstatSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { EntrypointError } from './errors.js';
import { baseArgs, configuredHidden } from './sandbox.js';
import { protectWorkspace } from './sandbox-protected.js';
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
 * Secrets in a home folder, hidden when the working directory shows that home (a tool run with `~` as its working
 * directory): keys, cloud and registry credentials, tokens.
 */
const HOME_SECRETS: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config',
  '.local/share/keyrings',
  '.netrc',
  '.git-credentials',
  '.pgpass',
  '.npmrc',
  '.pypirc',
];

/**
 * bubblewrap's arguments for one call, before `--`, and a `release` to call once the call's processes are gone (it
 * removes the stand-ins `protectWorkspace` made). The sandbox shows the system folders read-only (`systemArgs`), the
 * working directory read-write — its protected paths (`PROTECTED_WORKSPACE_PATHS`) read-only —, the skill folder
 * read-only, a private /tmp (and TMPDIR), and the tool's `$HOME` as a private, empty folder; nothing else of the
 * host: not the user's home, not a config file, not /run or any other folder where a Unix socket could be. The birdie
 * folders and whatever the application hides are replaced by empty ones where they would show. A new PID (and IPC,
 * UTS, cgroup, user) namespace; no network namespace of the host's unless `network` (then /etc/resolv.conf's target
 * is shown too, where it lies outside the system folders).
 */
export function prepareSandbox(request: SandboxRequest): {
  args: string[];
  /** Whether `release` would change the working directory now, so the call's processes must be gone first. */
  removes: () => boolean;
  release: () => void;
} {
  const cwd = real(request.cwd);
  if (!cwd || !statSync(cwd).isDirectory()) {
    throw new EntrypointError(
      'spawn-failed',
      `could not start the sandbox: working directory ${request.cwd} does not exist`,
    );
  }
  const hidden = hiddenOf(request.env);
  const exposed = hidden.find((h) => h.path === cwd);
  if (exposed) {
    throw new EntrypointError(
      'sandbox-unavailable',
      `a sandboxed tool cannot run with ${request.cwd} as its working directory: it is the birdie folder, which the sandbox hides (it holds your config and sessions); choose another working directory`,
    );
  }
  const skillDir = request.skillDir && real(request.skillDir);
  const args = baseArgs(request.network);
  if (request.network) args.push(...resolverArgs());
  const home = privateHome(request.env.HOME, cwd);
  if (home) args.push('--tmpfs', home);
  const tmpdir = privateTmpdir(request.env.TMPDIR, cwd);
  if (tmpdir) args.push('--tmpfs', tmpdir);
  args.push('--bind', cwd, cwd);
  // What would show of a birdie folder, a hidden file or a home's secrets is replaced by an empty one; a working
  // directory inside such a folder is bound again on top of it.
  const shown = [...systemRoots(), cwd, ...(skillDir ? [skillDir] : [])];
  const covered = [...hidden, ...homeSecrets(request.env.HOME, cwd)].filter((h) =>
    shown.some((root) => within(root, h.path)),
  );
  for (const h of covered) {
    if (h.directory) args.push('--tmpfs', h.path);
    else args.push('--ro-bind', '/dev/null', h.path);
  }
  if (covered.some((h) => inside(h.path, cwd))) args.push('--bind', cwd, cwd);
  // The skill folder is read (python: imports from it) even where it lies under /tmp, the home or a birdie folder.
  if (skillDir && skillDir !== '/' && !within(cwd, skillDir)) args.push('--ro-bind', skillDir, skillDir);
  for (const dir of programDirs(request.programDirs, cwd)) args.push('--ro-bind', dir, dir);
  const protectedPaths = protectWorkspace(cwd);
  args.push(...protectedPaths.args, '--chdir', request.cwd);
  return { args, removes: protectedPaths.removes, release: protectedPaths.release };
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
 * Whether `path` (a folder on PATH) is there in a sandbox for `cwd` and `skillDir`: the sandbox starts its program from
 * the first folder on PATH that it shows, so a program under a hidden home (pyenv's shims, ~/.local/bin) gives way
 * to the system's.
 */
export function shownInSandbox(path: string, cwd: string, skillDir?: string): boolean {
  if (!isAbsolute(path)) return true;
  const target = real(path);
  if (!target) return false;
  const roots = [...systemRoots(), real(cwd), skillDir && real(skillDir)].filter((p): p is string => !!p);
  return roots.some((root) => within(root, target));
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

/** The secrets of a home that the working directory shows (the working directory is that home, or holds it). */
function homeSecrets(home: string | undefined, cwd: string): Hidden[] {
  const root = home && isAbsolute(home) ? real(home) : undefined;
  if (!root || !within(cwd, root)) return [];
  const found: Hidden[] = [];
  for (const name of HOME_SECRETS) {
    const path = join(root, name);
    try {
      const stats = lstatSync(path);
      if (!stats.isSymbolicLink()) found.push({ path, directory: stats.isDirectory() });
    } catch {
      // absent
    }
  }
  return found;
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
