import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { EntrypointError } from './errors.js';
import { baseArgs, configuredHidden } from './sandbox.js';

/** What one sandboxed call may see and change. */
export interface SandboxRequest {
  /** The working directory: the only place the call can write (besides private temp folders). */
  cwd: string;
  /** The child's environment (its BIRDIE_HOME, HOME and TMPDIR are read). */
  env: Record<string, string>;
  network: boolean;
  /** The skill folder: kept readable even where it lies inside the birdie folder (user skills do). */
  skillDir?: string;
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
 * bubblewrap's arguments for one call, before `--`: the whole file system read-only, a private /tmp (and TMPDIR),
 * the working directory read-write, the birdie folders hidden, a new PID (and IPC, UTS, cgroup, user) namespace,
 * no network namespace of the host's unless `network`; without network, /run is hidden too, so the host's Unix
 * sockets there (D-Bus, Docker, systemd) are out of reach.
 */
export function sandboxArgs(request: SandboxRequest): string[] {
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
  const args = baseArgs(request.network);
  if (!request.network) args.push('--tmpfs', '/run');
  const tmpdir = privateTmpdir(request.env.TMPDIR, cwd);
  if (tmpdir) args.push('--tmpfs', tmpdir);
  // The working directory first, then the birdie folders over it (~ as the working directory still hides ~/.birdie);
  // a working directory or skill folder inside a birdie folder is mounted again on top of the hiding tmpfs.
  const cwdHidden = hidden.some((h) => inside(h.path, cwd));
  if (!cwdHidden) args.push('--bind', cwd, cwd);
  for (const h of hidden) {
    if (h.directory) args.push('--tmpfs', h.path);
    else args.push('--ro-bind', '/dev/null', h.path);
  }
  if (cwdHidden) args.push('--bind', cwd, cwd);
  // The skill folder is read (python: imports from it) even where it lies under /tmp or a birdie folder.
  const skillDir = request.skillDir && real(request.skillDir);
  if (skillDir && skillDir !== '/' && !within(cwd, skillDir)) args.push('--ro-bind', skillDir, skillDir);
  args.push('--chdir', request.cwd);
  return args;
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
