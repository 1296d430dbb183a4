import { type ChildProcess, spawn } from 'node:child_process';
import { BIN } from './env.js';

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A `birdie` process started in the background: its output so far, and its end. */
export interface BirdieProcess {
  readonly child: ChildProcess;
  /** The pid of the node process running birdie (the one a lease names). */
  readonly pid: number;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<Finished>;
  /** Resolves when the process itself has ended ('exit'), even if a survivor still holds its output pipes. */
  readonly gone: Promise<void>;
  /** Resolves once the stream's text matches `pattern`; rejects when the process ends first or after `timeoutMs`. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  kill(signal?: NodeJS.Signals): void;
}

export interface StartOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** A command prefix (a private mount namespace, another user, a ulimit) run before `node …/bin.js`. */
  wrap?: string[];
  /** Killed with SIGKILL after this long, so a hanging command fails its test instead of hanging it. */
  timeoutMs?: number;
  /** Another copy of the built CLI's `bin.js` (default: `dist/bin.js`). */
  bin?: string;
}

/** Starts the compiled CLI (`node dist/bin.js ARGS`) as a real child process, stdin closed. */
export function startBirdie(args: string[], options: StartOptions): BirdieProcess {
  const [command, ...rest] = [...(options.wrap ?? []), process.execPath, options.bin ?? BIN, ...args];
  const child = spawn(command!, rest, {
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const watchers = new Set<() => void>();
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const watch of [...watchers]) watch();
  });
  child.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    for (const watch of [...watchers]) watch();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  let ended = false;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const exited = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject);
    // 'close': the streams are drained too, so the output is complete.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      ended = true;
      for (const watch of [...watchers]) watch();
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    child,
    pid: child.pid!,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    gone,
    kill: (signal = 'SIGKILL') => {
      child.kill(signal);
    },
    waitFor(stream, pattern, timeoutMs = 20_000) {
      const text = () => (stream === 'stdout' ? stdout : stderr);
      return new Promise((resolve, reject) => {
        const deadline = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`no ${pattern} on ${stream} within ${timeoutMs} ms; stderr: ${stderr}`));
        }, timeoutMs);
        const check = () => {
          const match = text().match(pattern);
          if (match || ended) {
            watchers.delete(check);
            clearTimeout(deadline);
            if (match) resolve(match);
            else reject(new Error(`birdie ended before ${pattern} on ${stream}; stderr: ${stderr}`));
          }
        };
        watchers.add(check);
        check();
      });
    },
  };
}

/** Runs the compiled CLI to its end. */
export function birdie(args: string[], options: StartOptions): Promise<Finished> {
  return startBirdie(args, options).exited;
}
