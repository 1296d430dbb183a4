import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { EntrypointError } from './errors.js';
import { locateCommand, spawnCodeText } from './executable.js';
import { type Limits, seconds } from './limits.js';
import { OutputCap } from './output-cap.js';
import { GUARD_ENV, guardedLaunch, guardPlan } from './process-guard.js';
import { isStopping, track } from './process-registry.js';
import { killTree, waitGone } from './process-tree.js';
import { detectBwrap } from './sandbox.js';
import { prepareSandbox, shownInSandbox } from './sandbox-layout.js';
import type { OutputChunk, RunResult } from './types.js';

export interface ProcessSpec {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string;
  /** When false, stderr is kept apart (tail only) and `output` is stdout alone. */
  mergeStderr: boolean;
  /** Short name for messages, e.g. "command" or "python3". */
  label: string;
  /** Run under the sandbox (bubblewrap); `skillDir` stays readable in it. */
  sandbox?: { network: boolean; skillDir?: string; programDirs?: readonly string[] };
  /** Hears the output as it arrives (see `RunOptions.onOutput`); `liveStreams` says which streams it hears. */
  onOutput?: (chunk: OutputChunk) => void;
  /** Default both; `python:` passes only stderr (its stdout is the JSON envelope). */
  liveStreams?: 'both' | 'stderr';
}

export interface ProcessOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  truncated: boolean;
  /** Bytes of output left out of `output` (between its head and its tail), 0 when it is whole. */
  droppedBytes: number;
  stderrTail: string;
  /** It ran under the sandbox, whose init reports a signal as exit code 128 + N. */
  sandboxed: boolean;
}

const STDERR_TAIL_BYTES = 2_000;

/**
 * Runs one child in its own process group, under the process guard when the machine allows it (see
 * process-guard.ts). However the child ends (exit, timeout, abort, `stopAllProcesses`), the whole group is
 * terminated afterwards, so nothing it started in the background outlives the call.
 */
export async function runProcess(
  spec: ProcessSpec,
  limits: Limits,
  signal?: AbortSignal,
): Promise<ProcessOutcome> {
  if (signal?.aborted) throw abortedError(spec.label, signal);
  if (isStopping()) throw stoppedError(spec.label);
  const launch = await launchOf(spec);
  if (signal?.aborted || isStopping()) {
    launch.release();
    throw signal?.aborted ? abortedError(spec.label, signal) : stoppedError(spec.label);
  }
  let pid: number | undefined;
  try {
    return await started(spec, launch, limits, signal, (child) => {
      pid = child;
    });
  } finally {
    // Only once no process of the call is left (bubblewrap's init ends just after its child): a stand-in removed
    // earlier would be unmounted in a sandbox still running.
    if (pid !== undefined && launch.removes())
      await waitGone([{ pid: () => pid, group: true }], limits.killGraceMs + 1_000, true);
    launch.release();
  }
}

/** Spawns the launch and settles with its outcome (see `runProcess`); `onPid` hears the child's pid. */
function started(
  spec: ProcessSpec,
  launch: Launch,
  limits: Limits,
  signal: AbortSignal | undefined,
  onPid: (pid: number) => void,
): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const output = new OutputCap(limits.maxOutputBytes);
    const stderr = new OutputCap(STDERR_TAIL_BYTES, 1);
    let stopped: 'timeout' | 'aborted' | 'stopped' | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let settled = false;

    let child: ChildProcess;
    try {
      child = spawn(launch.command, launch.args, {
        cwd: spec.cwd,
        env: launch.env,
        detached: true,
        stdio: [spec.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (cause) {
      // e.g. a NUL byte in a caller-supplied environment value
      const reason = cause instanceof Error ? cause.message : String(cause);
      return reject(
        new EntrypointError('spawn-failed', `could not start ${spec.command}: ${reason}`, { cause }),
      );
    }

    if (child.pid !== undefined) onPid(child.pid);
    const killGroup = (sig: NodeJS.Signals | 0): boolean => {
      if (child.pid === undefined) return false;
      try {
        process.kill(-child.pid, sig);
        return true;
      } catch {
        return false; // ESRCH: the group is already gone
      }
    };
    const tree = { pid: () => child.pid, group: true, guarded: launch.guarded };
    let markSettled = () => {};
    const settledSignal = new Promise<void>((done) => {
      markSettled = done;
    });
    const untrack = track({
      ...tree,
      settled: settledSignal,
      onStop: () => {
        if (!exit && !stopped) stopped = 'stopped';
      },
    });
    const terminate = () => {
      if (!killGroup('SIGTERM')) return;
      killTimer ??= setTimeout(() => {
        killTree(tree);
        if (settled) untrack();
      }, limits.killGraceMs);
      killTimer.unref?.();
    };
    const stop = (why: 'timeout' | 'aborted') => {
      if (exit || stopped) return;
      stopped = why;
      terminate();
    };

    const timer = setTimeout(() => stop('timeout'), limits.timeoutMs);
    const onAbort = () => stop('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });

    const live = liveListener(spec);
    child.stdout!.on('data', (chunk: Buffer) => {
      output.push(chunk);
      live?.stdout(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      if (spec.mergeStderr) output.push(chunk);
      live?.stderr(chunk);
    });
    if (spec.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {}); // the child may exit without reading; EPIPE is not our failure
      child.stdin.end(spec.input);
    }

    const finish = (error?: EntrypointError) => {
      if (settled) return;
      settled = true;
      // After this call has resolved or rejected the run (below): stopAllProcesses waits for it.
      queueMicrotask(markSettled);
      clearTimeout(timer);
      clearTimeout(drainTimer);
      signal?.removeEventListener('abort', onAbort);
      live?.end();
      if (!killTimer || !killGroup(0)) {
        clearTimeout(killTimer);
        untrack();
      }
      if (error) return reject(error);
      const text = output.text();
      if (stopped === 'timeout') {
        return reject(
          new EntrypointError(
            'timeout',
            `${spec.label} timed out after ${seconds(limits.timeoutMs)} and was killed`,
            {
              output: text,
            },
          ),
        );
      }
      if (stopped === 'aborted') return reject(abortedError(spec.label, signal, text));
      if (stopped === 'stopped') return reject(stoppedError(spec.label, text));
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        output: text,
        truncated: output.truncated,
        droppedBytes: output.dropped,
        stderrTail: tailOf(stderr.text()),
        sandboxed: launch.sandboxed,
      });
    };

    child.on('error', (cause: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // errors after spawn surface through exit/close
      // uv reports a missing cwd as ENOENT too; say which one it was.
      const cwdExists = existsSync(spec.cwd);
      const reason = cwdExists
        ? cause.code
          ? spawnCodeText(cause.code)
          : cause.message
        : `working directory ${spec.cwd} does not exist`;
      finish(new EntrypointError('spawn-failed', `could not start ${spec.command}: ${reason}`, { cause }));
    });
    child.on('exit', (code, sig) => {
      exit = { code, signal: sig };
      // Background processes left in the group would keep the pipes open: end them with the call.
      terminate();
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, limits.killGraceMs + 500);
      drainTimer.unref?.();
    });
    child.on('close', () => {
      if (exit) finish();
    });
  });
}

/**
 * Decodes each stream on its own (a multibyte character cut between two reads waits for its rest) and hands the text
 * to the spec's listener. Absent without a listener, so a call nobody watches decodes nothing twice.
 */
function liveListener(
  spec: ProcessSpec,
): { stdout(chunk: Buffer): void; stderr(chunk: Buffer): void; end(): void } | undefined {
  const listener = spec.onOutput;
  if (!listener) return undefined;
  const call = (stream: OutputChunk['stream'], text: string) => {
    if (!text) return;
    try {
      listener({ stream, text });
    } catch {
      // The listener is the application's display: its failure must not change the call's outcome.
    }
  };
  const out = new StringDecoder('utf8');
  const err = new StringDecoder('utf8');
  const withStdout = spec.liveStreams !== 'stderr';
  let ended = false;
  return {
    stdout: (chunk) => {
      if (withStdout && !ended) call('stdout', out.write(chunk));
    },
    stderr: (chunk) => {
      if (!ended) call('stderr', err.write(chunk));
    },
    end: () => {
      if (ended) return;
      ended = true;
      if (withStdout) call('stdout', out.end());
      call('stderr', err.end());
    },
  };
}

interface Launch {
  command: string;
  args: string[];
  env: Record<string, string>;
  guarded: boolean;
  sandboxed: boolean;
  /** Undoes what the sandbox's layout made on the host (see `prepareSandbox`); called once the call's tree is gone. */
  release: () => void;
  /** Whether `release` changes anything now (then the tree must be gone first, its sandbox's init included). */
  removes: () => boolean;
}

/** What to spawn for `spec`: the guard's helper around bubblewrap around the command, each when it applies. */
async function launchOf(spec: ProcessSpec): Promise<Launch> {
  let { command, args } = spec;
  let release = () => {};
  let removes = () => false;
  if (spec.sandbox) {
    const found = await detectBwrap();
    if ('reason' in found) {
      throw new EntrypointError(
        'sandbox-unavailable',
        `${spec.label} was not started: it must run in the sandbox, and ${found.reason}. It never runs unconfined instead`,
      );
    }
    if (!existsSync(spec.cwd)) throw spawnFailed(spec, 'ENOENT');
    const request = { cwd: spec.cwd, env: spec.env, ...spec.sandbox };
    // bubblewrap would report a missing program with its own exit code: find it now, as spawn would, among the
    // folders the sandbox shows.
    const inner = locate(spec, shownInSandbox(request));
    const layout = prepareSandbox(request);
    args = [...layout.args, '--', inner, ...spec.args];
    command = found.bwrap;
    release = layout.release;
    removes = layout.removes;
  }
  const sandboxed = spec.sandbox !== undefined;
  const { status, helper } = await guardPlan();
  if (!helper) {
    if (status.mode === 'require') {
      release();
      throw new EntrypointError(
        'process-guard-unavailable',
        `${spec.label} was not started: ${GUARD_ENV}=require, but ${status.reason}`,
      );
    }
    return { command, args, env: spec.env, guarded: false, sandboxed, release, removes };
  }
  // The helper would only fail later, with exit code 127: find the program now, as spawn would.
  if (!sandboxed) locate(spec);
  return { ...guardedLaunch(helper, command, args, spec.env), guarded: true, sandboxed, release, removes };
}

/** The absolute path of the spec's program, or the `spawn-failed` error spawn itself would have given. */
function locate(spec: ProcessSpec, shown: (folder: string) => boolean = () => true): string {
  const path = (spec.env.PATH ?? '')
    .split(':')
    .filter((folder) => folder === '' || shown(folder))
    .join(':');
  const found = locateCommand(spec.command, path, spec.cwd);
  if ('path' in found) return found.path;
  throw spawnFailed(spec, found.code);
}

function spawnFailed(spec: ProcessSpec, code: 'ENOENT' | 'EACCES'): EntrypointError {
  const reason = existsSync(spec.cwd) ? spawnCodeText(code) : `working directory ${spec.cwd} does not exist`;
  const cause = Object.assign(new Error(`spawn ${spec.command} ${code}`), {
    code,
    syscall: `spawn ${spec.command}`,
    path: spec.command,
  });
  return new EntrypointError('spawn-failed', `could not start ${spec.command}: ${reason}`, { cause });
}

function stoppedError(label: string, output?: string): EntrypointError {
  return new EntrypointError('aborted', `${label} was cancelled: every child process is being stopped`, {
    ...(output === undefined ? {} : { output }),
  });
}

function abortedError(label: string, signal?: AbortSignal, output?: string): EntrypointError {
  const reason = signal?.reason instanceof Error ? `: ${signal.reason.message}` : '';
  return new EntrypointError('aborted', `${label} was cancelled${reason}`, {
    cause: signal?.reason,
    ...(output === undefined ? {} : { output }),
  });
}

/** The last lines of stderr, at most ~2 KB: enough for a model to see what went wrong. */
/** A run that exited 0 as the tool's result: its output, and what was left out of it, when anything was. */
export function succeeded(outcome: ProcessOutcome): RunResult {
  return {
    output: outcome.output,
    exitCode: 0,
    truncated: outcome.truncated,
    ...(outcome.droppedBytes > 0 ? { droppedBytes: outcome.droppedBytes } : {}),
  };
}

export function tailOf(text: string, maxChars = STDERR_TAIL_BYTES): string {
  const trimmed = text.trimEnd();
  if (trimmed.length <= maxChars) return trimmed;
  const cut = trimmed.slice(trimmed.length - maxChars);
  const nl = cut.indexOf('\n');
  return `…${nl >= 0 && nl < 200 ? cut.slice(nl) : cut}`;
}
