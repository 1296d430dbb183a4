import { spawn } from 'node:child_process';
import { findExecutable } from './executable.js';
import { GUARD_HELPER, GUARD_KILL, PRCTL_SYSCALL } from './guard-helper.js';

/**
 * How child process trees are tied to this process.
 * - `auto` (default): the guard when this machine can run it, else plain process groups (with a reason).
 * - `off`: plain process groups only.
 * - `require`: the guard or no child at all (`process-guard-unavailable`).
 */
export type ProcessGuardMode = 'auto' | 'off' | 'require';

export interface ProcessGuardStatus {
  mode: ProcessGuardMode;
  /**
   * True: every child's whole tree (background jobs, daemons, `setsid` escapees) is killed when this process dies,
   * even by SIGKILL, and when the child ends. False: trees are ended on timeout, abort, exit and
   * `stopAllProcesses` through their process group, but outlive a SIGKILLed parent.
   */
  active: boolean;
  /** Why the guard is not active (mode `off`, not Linux, no perl, …): show it once. */
  reason?: string;
  /** Set when `BIRDIE_PROCESS_GUARD` holds a value this package does not know (it then acts as `auto`). */
  warning?: string;
}

export interface GuardPlan {
  status: ProcessGuardStatus;
  /** Where the guard can run: the perl that runs the helper, and this architecture's prctl syscall number. */
  helper?: { perl: string; prctl: number };
}

export const GUARD_ENV = 'BIRDIE_PROCESS_GUARD';
const MODES: readonly ProcessGuardMode[] = ['auto', 'off', 'require'];

let configured: ProcessGuardMode | undefined;
let detecting: Promise<Detection> | undefined;

type Detection = { helper: { perl: string; prctl: number } } | { reason: string };

/**
 * Sets the guard mode for every child started from now on (`undefined`: back to `BIRDIE_PROCESS_GUARD`, default
 * `auto`).
 */
export function configureProcessGuard(mode?: ProcessGuardMode): void {
  if (mode !== undefined && !MODES.includes(mode)) throw new TypeError(`unknown process guard mode: ${mode}`);
  configured = mode;
}

/** What the guard does here. Whether this machine can run it is checked once, on first use, by running it (a few ms). */
export async function processGuardStatus(): Promise<ProcessGuardStatus> {
  return { ...(await guardPlan()).status };
}

export async function guardPlan(): Promise<GuardPlan> {
  const { mode, warning } = requestedMode();
  const extra = warning ? { warning } : {};
  if (mode === 'off') return { status: { mode, active: false, reason: `${GUARD_ENV}=off`, ...extra } };
  detecting ??= detect();
  const found = await detecting;
  if ('reason' in found) return { status: { mode, active: false, reason: found.reason, ...extra } };
  return { status: { mode, active: true, ...extra }, helper: found.helper };
}

function requestedMode(): { mode: ProcessGuardMode; warning?: string } {
  if (configured) return { mode: configured };
  const raw = process.env[GUARD_ENV]?.trim().toLowerCase();
  if (!raw) return { mode: 'auto' };
  if ((MODES as readonly string[]).includes(raw)) return { mode: raw as ProcessGuardMode };
  return {
    mode: 'auto',
    warning: `${GUARD_ENV}=${JSON.stringify(process.env[GUARD_ENV])} is not one of ${MODES.join(', ')}; using auto`,
  };
}

async function detect(): Promise<Detection> {
  if (process.platform !== 'linux') return { reason: `the guard needs Linux (this is ${process.platform})` };
  const prctl = PRCTL_SYSCALL[process.arch];
  if (prctl === undefined) return { reason: `the guard does not know this architecture (${process.arch})` };
  const perl = findExecutable('perl', process.env.PATH ?? '');
  if (!perl) return { reason: 'perl was not found on PATH (Debian and Ubuntu always have it: perl-base)' };
  const helper = { perl, prctl };
  const failure = await probe(helper);
  return failure ? { reason: `the guard did not work here: ${failure}` } : { helper };
}

/** Runs the helper once around `sh -c 'echo ok'`; resolves to why it failed, or undefined when it works. */
function probe(helper: { perl: string; prctl: number }): Promise<string | undefined> {
  return new Promise((resolve) => {
    const sh = findExecutable('sh', process.env.PATH ?? '') ?? '/bin/sh';
    const launch = guardedLaunch(helper, sh, ['-c', 'echo ok'], { PATH: process.env.PATH ?? '' });
    let out = '';
    const child = spawn(launch.command, launch.args, {
      env: launch.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {}
    }, 10_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && out.trim() === 'ok') return resolve(undefined);
      resolve(out.trim().split('\n').pop() || `the probe ended with ${signal ?? `exit code ${code}`}`);
    });
  });
}

/**
 * How to start `command args` with environment `env` under the guard: the helper's argv and its own environment
 * (the child gets `env` back). `pidFile` receives the helper's pid first thing.
 */
export function guardedLaunch(
  helper: { perl: string; prctl: number },
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  pidFile?: string,
): { command: string; args: string[]; env: Record<string, string> } {
  const own: Record<string, string> = {};
  const restore: string[] = [];
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith('PERL')) restore.push(`${key}=${value}`);
    else own[key] = value;
  }
  own.PERL_BADLANG = '0'; // no locale warning from perl on the child's stderr
  return {
    command: helper.perl,
    args: [
      '-e',
      GUARD_HELPER,
      String(process.pid),
      String(helper.prctl),
      pidFile ?? '-',
      GUARD_KILL,
      String(restore.length),
      ...restore,
      command,
      ...args,
    ],
    env: own,
  };
}
