import { AsyncLocalStorage } from 'node:async_hooks';
import { EntrypointError } from './errors.js';
import { redirectCallChildren } from './node-call-children.js';

/**
 * What a process-level failure handler gets back from `claimStrayFailure`: the `node:` tool whose code the failure
 * comes from, and whether its call was still running (and so failed with it).
 */
export interface StrayFailureClaim {
  /** The tool's entrypoint as errors name it (`skill › tool (node:tools.mjs#fn)`). */
  tool: string;
  failedCall: boolean;
  /**
   * Another call of the same module was running: what the first call left in its scope (a queue or timer the module
   * keeps) may be serving that one, so the failure fails neither call and is only logged.
   */
  shared?: true;
}

/** An unhandled promise rejection, or an exception thrown from a callback nobody called inside a `try`. */
export type StrayFailureKind = 'rejection' | 'exception';

/**
 * The application's handler finds the claimer through this global symbol (it is not among the package's exports), so
 * that it can install its process handlers before (and without) loading this package — `birdie --version` loads
 * nothing of it: `globalThis[Symbol.for('birdie.claim-stray-failure')]?.(error, kind)`.
 */
const CLAIMER = Symbol.for('birdie.claim-stray-failure');

/** One in-process `node:` call: its code (and every callback and promise it starts) runs in this scope. */
export class NodeCallScope {
  #fail: ((error: EntrypointError) => void) | undefined;
  /** `module`: the file the call's function comes from; its calls running at once are counted. */
  constructor(
    readonly where: string,
    readonly module: string,
  ) {}

  run<T>(fn: () => T): T {
    registerClaimer();
    // A child its code starts with inherited stdio writes to stderr, not the application's stdout.
    redirectCallChildren(inCallScope);
    return scopes.run(this, fn);
  }

  /** While the call runs: how a failure its code left behind ends it; `undefined` once it is over. */
  failWith(fail: ((error: EntrypointError) => void) | undefined): void {
    if (fail && !this.#fail) running.set(this.module, (running.get(this.module) ?? 0) + 1);
    if (!fail && this.#fail) {
      const left = (running.get(this.module) ?? 1) - 1;
      if (left > 0) running.set(this.module, left);
      else running.delete(this.module);
    }
    this.#fail = fail;
  }

  /** Whether another call of the same module is running beside this one. */
  get shared(): boolean {
    return (running.get(this.module) ?? 0) > (this.#fail ? 1 : 0);
  }

  fail(error: EntrypointError): boolean {
    if (!this.#fail) return false;
    this.#fail(error);
    return true;
  }
}

/** How many calls of each module are running (in-process), by the module's file. */
const running = new Map<string, number>();

const scopes = new AsyncLocalStorage<NodeCallScope>();

/** Whether the code running now is an in-process call's (see `NodeCallScope`). */
const inCallScope = (): boolean => scopes.getStore() !== undefined;

/**
 * Hands a failure no code handled (the process's `unhandledRejection` or `uncaughtException`) to the in-process
 * `node:` tool call whose code it comes from — the call that created the rejected promise or scheduled the callback
 * that threw, however far down its chain of promises, timers and events. A call still running fails with it (the
 * model gets the tool's failure, not a result it cannot trust); a call that is over is named so the application
 * can log it. `undefined` when no tool call's code is behind it (birdie's own code, a library's). Must be called
 * synchronously from the process's handler: the async context it runs in is what names the call.
 */
export function claimStrayFailure(error: unknown, kind: StrayFailureKind): StrayFailureClaim | undefined {
  const scope = scopes.getStore();
  if (!scope) return undefined;
  if (scope.shared) return { tool: scope.where, failedCall: false, shared: true };
  return { tool: scope.where, failedCall: scope.fail(strayFailure(scope.where, kind, error)) };
}

export function strayFailure(where: string, kind: StrayFailureKind, cause: unknown): EntrypointError {
  const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  const what =
    kind === 'rejection' ? 'left a promise rejected that nothing handled' : 'threw from a callback';
  return new EntrypointError('call-failed', `${where} ${what}: ${reason}`, { cause });
}

let registered = false;

/** Made known the first time a call runs in-process: only then can a tool's failure reach the process. */
function registerClaimer(): void {
  if (registered) return;
  registered = true;
  (globalThis as Record<symbol, unknown>)[CLAIMER] = claimStrayFailure;
}
