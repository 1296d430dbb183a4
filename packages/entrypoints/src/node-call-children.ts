import type { ChildProcess } from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';

/**
 * A child process that an in-process `node:` call starts with inherited stdio (`spawnSync(…, { stdio: 'inherit' })`,
 * `execSync` the same, `fork`, which inherits by default) would write into file descriptor 1: the application's own
 * stdout (`birdie run`'s answer, its `--json` events, ACP's and MCP's messages). Node.js cannot point this process's
 * descriptor 1 elsewhere (no `dup2`), so the children of the call's code are started with descriptor 2, stderr, where
 * the descriptor 1 they asked for was: where the CLI sends a tool's `console.log` too. Such a child would also read
 * the application's descriptor 0 (ACP's and MCP's protocol stream, `birdie run -`'s prompt), swallowing what was
 * meant for the application or blocking on it: its stdin is `'ignore'` instead (end of file at once). Every way
 * `node:child_process` starts a child is covered — `spawn`, `exec`, `execFile` and `fork` through
 * `ChildProcess.prototype.spawn`, and `spawnSync`, `execSync` and `execFileSync` themselves — and only for code in a
 * call's scope (`inCall`): the application's own children keep the stdio they ask for.
 */
export function redirectCallChildren(inCall: () => boolean): void {
  if (installed) return;
  installed = true;
  const childProcess = createRequire(import.meta.url)('node:child_process') as Mutable;
  const prototype = childProcess.ChildProcess.prototype as unknown as {
    spawn: (options: unknown) => unknown;
  };
  const spawn = prototype.spawn;
  prototype.spawn = function (this: ChildProcess, options: unknown) {
    return spawn.call(this, inCall() ? offStdio(options) : options);
  };
  for (const name of ['spawnSync', 'execSync', 'execFileSync'] as const) {
    const original = childProcess[name] as (...args: unknown[]) => unknown;
    childProcess[name] = function (this: unknown, ...args: unknown[]) {
      if (inCall()) {
        // The options are the last argument that is an object but not an array (the argument list).
        const at = args.findLastIndex(
          (arg) => arg !== null && typeof arg === 'object' && !Array.isArray(arg),
        );
        if (at >= 0) args[at] = offStdio(args[at]);
      }
      return original.apply(this, args);
    } as never;
  }
  // `import { spawnSync } from 'node:child_process'` sees the new functions too (a tool's module is imported later,
  // and ES module bindings of a built-in follow its exports once synced).
  syncBuiltinESMExports();
}

let installed = false;

type Mutable = {
  -readonly [K in keyof typeof import('node:child_process')]: typeof import('node:child_process')[K];
};

const STDERR = 2;

/**
 * `options` with every stdio slot that would write to descriptor 1 writing to descriptor 2 instead, and a stdin that
 * would read descriptor 0 reading nothing. Only slots 0 and 1 change (`fork`'s `'ipc'` slot stays).
 */
function offStdio(options: unknown): unknown {
  if (options === null || typeof options !== 'object') return options;
  const { stdio } = options as { stdio?: unknown };
  if (stdio === 'inherit') return { ...options, stdio: ['ignore', STDERR, 'inherit'] };
  if (!Array.isArray(stdio) || !stdio.some(sharesStdio)) return options;
  return {
    ...options,
    stdio: stdio.map((slot, k) => (!sharesStdio(slot, k) ? slot : k === 0 ? 'ignore' : STDERR)),
  };
}

/**
 * A slot the child would share with this process's stdin or stdout: `'inherit'` in slot 0 or 1, or descriptor 0 or
 * 1 given there as a number or a stream on it (`process.stdin`, `process.stdout`). Descriptor 1 is moved in any slot.
 */
function sharesStdio(slot: unknown, index: number): boolean {
  const fd = slot === 'inherit' ? index : typeof slot === 'number' ? slot : fdOf(slot);
  return fd === 1 || (fd === 0 && index === 0);
}

function fdOf(slot: unknown): unknown {
  return slot !== null && typeof slot === 'object' ? (slot as { fd?: unknown }).fd : undefined;
}
