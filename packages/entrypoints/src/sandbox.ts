import { spawn } from 'node:child_process';
import { findExecutable } from './executable.js';
import { systemArgs } from './sandbox-system.js';

/**
 * Which `bash:`/`python:` calls run under the sandbox.
 * - `declared` (default): the tools that declare `sandbox: true`, and calls given `RunOptions.sandbox: true`;
 * - `always`: every one of them (the Shell skill's raw `run_bash` included).
 * There is no mode that turns a declared sandbox off: a tool that asked for it never runs unconfined.
 */
export type SandboxMode = 'declared' | 'always';

export interface SandboxStatus {
  mode: SandboxMode;
  /** True when bubblewrap is installed and could start a sandbox here. */
  available: boolean;
  /** The bwrap program used. */
  bwrap?: string;
  /** `bubblewrap 0.8.0`, from `bwrap --version`. */
  version?: string;
  /** Why sandboxed calls cannot run here, with what to do about it. */
  reason?: string;
  /** Set when `BIRDIE_SANDBOX` holds a value this package does not know (it then acts as `declared`). */
  warning?: string;
}

export const SANDBOX_ENV = 'BIRDIE_SANDBOX';
const MODES: readonly SandboxMode[] = ['declared', 'always'];

export const INSTALL_HINT =
  'install bubblewrap: `sudo apt-get install bubblewrap` (Debian, Ubuntu), `sudo dnf install bubblewrap` (Fedora), `sudo pacman -S bubblewrap` (Arch)';

let configured: SandboxMode | undefined;
/** One detection per PATH value: bwrap is looked up on the PATH of this process, never on a tool's. */
const detections = new Map<string, Promise<Detection>>();

type Detection = { bwrap: string; version: string } | { reason: string; bwrap?: string };

let hidden: readonly string[] = [];
let networkAllowed = true;

export interface SandboxOptions {
  /** More folders no sandboxed call may see, on top of `$BIRDIE_HOME` and `~/.birdie` (absolute paths). */
  hide?: readonly string[];
  /**
   * `false`: no sandboxed call gets the host's network, whatever its tool declares (`network: true` is then
   * ignored). A server sets it for its users' tools unless the operator allows the network. Default `true`.
   */
  network?: boolean;
}

/**
 * Sets the sandbox mode for every call started from now on (`undefined`: back to `BIRDIE_SANDBOX`, default
 * `declared`), and the folders it hides and whether a tool may have the network (see `SandboxOptions`). Each call
 * replaces the previous options.
 */
export function configureSandbox(mode?: SandboxMode, options: SandboxOptions = {}): void {
  if (mode !== undefined && !MODES.includes(mode)) throw new TypeError(`unknown sandbox mode: ${mode}`);
  configured = mode;
  hidden = [...(options.hide ?? [])];
  networkAllowed = options.network ?? true;
}

/** Whether a sandboxed call that declares `network: true` gets it (see `SandboxOptions.network`). */
export function sandboxNetworkAllowed(): boolean {
  return networkAllowed;
}

/** The folders the application asked to hide (see `configureSandbox`). */
export function configuredHidden(): readonly string[] {
  return hidden;
}

export function sandboxMode(): { mode: SandboxMode; warning?: string } {
  if (configured) return { mode: configured };
  const raw = process.env[SANDBOX_ENV]?.trim().toLowerCase();
  if (!raw) return { mode: 'declared' };
  if ((MODES as readonly string[]).includes(raw)) return { mode: raw as SandboxMode };
  return {
    mode: 'declared',
    warning: `${SANDBOX_ENV}=${JSON.stringify(process.env[SANDBOX_ENV])} is not one of ${MODES.join(', ')}; using declared`,
  };
}

/** What the sandbox does here. Whether bubblewrap works is checked once (per PATH), on first use, by running it. */
export async function sandboxStatus(): Promise<SandboxStatus> {
  const { mode, warning } = sandboxMode();
  const found = await detectBwrap();
  const extra = warning ? { warning } : {};
  if ('reason' in found) {
    return {
      mode,
      available: false,
      reason: found.reason,
      ...(found.bwrap ? { bwrap: found.bwrap } : {}),
      ...extra,
    };
  }
  return { mode, available: true, bwrap: found.bwrap, version: found.version, ...extra };
}

export function detectBwrap(): Promise<Detection> {
  const path = process.env.PATH ?? '';
  let detection = detections.get(path);
  if (!detection) {
    detection = detect(path);
    detections.set(path, detection);
  }
  return detection;
}

async function detect(path: string): Promise<Detection> {
  if (process.platform !== 'linux') {
    return { reason: `the sandbox needs Linux and bubblewrap (this is ${process.platform})` };
  }
  const bwrap = findExecutable('bwrap', path);
  if (!bwrap) return { reason: `bubblewrap (bwrap) was not found on PATH; ${INSTALL_HINT}` };
  const version = await run(bwrap, ['--version']);
  if (version.code !== 0)
    return { bwrap, reason: `${bwrap} --version failed: ${version.text || 'no output'}` };
  const shell = findExecutable('sh', path) ?? '/bin/sh';
  const probe = await run(bwrap, [...baseArgs(false), '--', shell, '-c', 'echo ok']);
  if (probe.code !== 0 || probe.text !== 'ok') {
    return {
      bwrap,
      reason:
        `bubblewrap is installed (${bwrap}) but cannot create a sandbox here: ${probe.text || `exit code ${probe.code}`}. ` +
        'It needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 on older Debian kernels; ' +
        'on Ubuntu 24.04 and later an AppArmor profile for bwrap, or kernel.apparmor_restrict_unprivileged_userns=0)',
    };
  }
  return { bwrap, version: version.text };
}

function run(command: string, args: string[]): Promise<{ code: number | null; text: string }> {
  return new Promise((resolve) => {
    let text = '';
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const add = (chunk: Buffer) => {
      text += chunk;
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: -1, text: error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, text: text.trim().split('\n').slice(-3).join(' ') });
    });
  });
}

/**
 * The namespaces, capabilities and host folders of every sandbox. `--cap-drop ALL` matters when birdie runs as root:
 * bubblewrap then creates no user namespace, and a process that kept CAP_SYS_ADMIN could remount a folder read-write.
 * `--unshare-all` includes the network namespace, and with it the host's abstract Unix sockets (they belong to a
 * network namespace, not to a folder); `network` shares the host's, abstract sockets included.
 */
export function baseArgs(network: boolean): string[] {
  return [
    '--die-with-parent',
    '--unshare-all',
    ...(network ? ['--share-net'] : []),
    '--cap-drop',
    'ALL',
    ...systemArgs(),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
  ];
}
