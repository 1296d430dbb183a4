import {
  closeSync,
  fstatSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
} from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv } from './env.js';
import { EntrypointError } from './errors.js';
import { findExecutable, locateCommand, spawnCodeText } from './executable.js';
import { tailOf } from './process.js';
import { GUARD_ENV, guardedLaunch, guardPlan } from './process-guard.js';
import { track } from './process-registry.js';
import { endTree, type ProcessTree, signalTree } from './process-tree.js';

export interface ServerProcessSpec {
  command: string;
  args?: readonly string[];
  /** Variables the server is given on purpose, on top of the host allowlist (PATH, HOME, locale, …). */
  env?: Record<string, string>;
  /** The directory the spawner will start it in (only used here to find a relative command). */
  cwd?: string;
  /**
   * Send the server's stderr to a file `stderrTail()` reads, whatever the spawner does with it: for a spawner that
   * drops stderr (the MCP SDK with `stderr: 'ignore'`). Off, stderr goes where the spawner says (a pipe it reads).
   */
  captureStderr?: boolean;
}

/** How a server process ended: exactly one of the two is set. */
export type ServerExit = { code: number; signal?: undefined } | { code?: undefined; signal: NodeJS.Signals };

export interface ServerProcess {
  /** Start exactly this (e.g. as an MCP stdio transport's command, args and env); nothing else. */
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
  /** True when the server's tree dies with this process even on SIGKILL (see `processGuardStatus`). */
  readonly guarded: boolean;
  /**
   * The pid of the process that was spawned — the server itself, or under the guard its helper, the server's
   * parent, which lives exactly as long — once it has started; undefined before. It is also the process group's
   * id when `group`.
   */
  pid(): number | undefined;
  /** False when the server runs without a process group of its own (no `setsid` on this machine). */
  readonly group: boolean;
  /** True while that process is alive. */
  alive(): boolean;
  /**
   * With `captureStderr`, the last lines the server wrote to stderr (at most `maxChars`, whole lines), '' when
   * none (or without it): what explains a server that exits at start. Its stderr goes to a file in the server's
   * temp folder, emptied by `alive()` once it passes 1 MB, so a chatty server cannot fill the disk.
   */
  stderrTail(maxChars?: number): string;
  /**
   * How the server ended, once it has: its exit code or the signal that killed it. Waits up to `waitMs` (default
   * 0) for the news, which can trail the spawner's own "connection closed" by a moment. Undefined while it runs,
   * and always without the process guard (the spawner, not this package, holds the child then).
   */
  exitStatus(waitMs?: number): Promise<ServerExit | undefined>;
  /**
   * SIGTERM to the server's tree, SIGKILL after `graceMs` (default 1 000), resolves when it is gone; also
   * removes the temp folder of the pid file. Safe to call more than once, and before the server started.
   */
  stop(options?: { graceMs?: number }): Promise<void>;
}

/*
 * Without the guard, a small sh writes its own pid before it execs the server: a spawner such as the MCP SDK only
 * exposes the pid after a successful handshake, and a server that hangs in it must be killable too. (The guard's
 * helper writes its pid itself.) dash exports PWD even when it was not given: the wrapper puts it back as it was.
 */
const PID_FIRST =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax
  'echo $$ >"$0"; case $1 in -) unset PWD ;; *) PWD=${1#=}; export PWD ;; esac; shift; exec "$@"';

const STDERR_TO_FILE = 'exec 2>>"$0"; exec "$@"';
const STDERR_FILE_CAP = 1024 * 1024;

/** Empties the file once it passes `cap`; the writer appends (O_APPEND), so it goes on at the new end. */
function capFile(path: string, cap: number): void {
  try {
    if (statSync(path).size > cap) truncateSync(path, 0);
  } catch {}
}

/** The last whole lines of a file, at most `maxChars`; '' when it is missing or empty. */
function fileTail(path: string, maxChars: number): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxChars * 4);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return tailOf(buffer.toString('utf8'), maxChars);
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The guard helper's record of the server's wait status (see GUARD_HELPER), decoded; undefined until written. */
function readExit(file: string): ServerExit | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  if (!text.endsWith('\n')) return undefined;
  const status = Number.parseInt(text, 10);
  if (!Number.isInteger(status)) return undefined;
  const signal = status & 127;
  if (signal === 0) return { code: status >> 8 };
  const name = Object.entries(osConstants.signals).find(([, n]) => n === signal)?.[0];
  return name ? { signal: name as NodeJS.Signals } : { code: 128 + signal };
}

/**
 * Wraps a long-running server's command (an MCP stdio server, say) for a spawner this package does not control:
 * it runs in its own process group (where `setsid` exists), under the process guard when it is active, with the
 * allowlisted environment, and `stopAllProcesses` ends it too. Throws `spawn-failed` when the command does not
 * exist and `process-guard-unavailable` in `require` mode without a guard.
 */
export async function wrapServerCommand(spec: ServerProcessSpec): Promise<ServerProcess> {
  const serverEnv = childEnv(spec.env);
  const args = [...(spec.args ?? [])];
  const { status, helper } = await guardPlan();
  if (!helper && status.mode === 'require') {
    throw new EntrypointError(
      'process-guard-unavailable',
      `${spec.command} was not started: ${GUARD_ENV}=require, but ${status.reason}`,
    );
  }
  const found = locateCommand(spec.command, serverEnv.PATH ?? '', spec.cwd ?? process.cwd());
  if ('code' in found) {
    throw new EntrypointError(
      'spawn-failed',
      `could not start ${spec.command}: ${spawnCodeText(found.code)}`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'birdie-server-'));
  const pidFile = join(dir, 'pid');
  const setsid = findExecutable('setsid', process.env.PATH ?? '');
  const group = setsid !== undefined;
  let launch: { command: string; args: string[]; env: Record<string, string> };
  if (helper) {
    const inner = guardedLaunch(helper, spec.command, args, serverEnv, pidFile);
    launch = setsid ? { ...inner, command: setsid, args: [inner.command, ...inner.args] } : inner;
  } else {
    const sh = findExecutable('sh', process.env.PATH ?? '') ?? '/bin/sh';
    const pwd = serverEnv.PWD === undefined ? '-' : `=${serverEnv.PWD}`;
    const wrapped = [sh, '-c', PID_FIRST, pidFile, pwd, spec.command, ...args];
    launch = setsid
      ? { command: setsid, args: wrapped, env: serverEnv }
      : { command: sh, args: wrapped.slice(1), env: serverEnv };
  }
  // stderr to a file the caller can read when the server fails; the sh execs on, so no process stays in between.
  const stderrFile = join(dir, 'stderr');
  if (spec.captureStderr) {
    const sh = findExecutable('sh', process.env.PATH ?? '') ?? '/bin/sh';
    launch = {
      command: sh,
      args: ['-c', STDERR_TO_FILE, stderrFile, launch.command, ...launch.args],
      env: launch.env,
    };
  }

  let pid: number | undefined;
  const readPid = (): number | undefined => {
    if (pid !== undefined) return pid;
    try {
      const value = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
      if (Number.isInteger(value) && value > 0) pid = value;
    } catch {}
    return pid;
  };
  const tree: ProcessTree = { pid: readPid, group, guarded: helper !== undefined };
  const untrack = track(tree);
  let stopping: Promise<void> | undefined;
  return {
    command: launch.command,
    args: launch.args,
    env: launch.env,
    guarded: helper !== undefined,
    group,
    pid: readPid,
    alive: () => {
      capFile(stderrFile, STDERR_FILE_CAP);
      return signalTree({ pid: readPid, group: false }, 0);
    },
    stderrTail: (maxChars = 2_000) => fileTail(stderrFile, maxChars),
    async exitStatus(waitMs = 0) {
      if (!helper) return undefined;
      const deadline = Date.now() + waitMs;
      for (;;) {
        const exit = readExit(`${pidFile}.exit`);
        if (exit || Date.now() >= deadline) return exit;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    stop(options = {}) {
      stopping ??= (async () => {
        readPid();
        await endTree(tree, options.graceMs ?? 1_000);
        untrack();
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}
