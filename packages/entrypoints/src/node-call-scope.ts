import { AsyncLocalStorage } from 'node:async_hooks';
import { EntrypointError } from './errors.js';

/**
 * What a process-level failure handler gets back from `claimStrayFailure`: the `node:` tool whose code the failure
 * comes from, and whether its call was still running (and so failed with it).
 */
export interface StrayFailureClaim {
  /** The tool's entrypoint as errors name it (`skill › tool (node:tools.mjs#fn)`). */
  tool: string;
  failedCall: boolean;
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
  constructor(readonly where: string) {}

  run<T>(fn: () => T): T {
    registerClaimer();
    return scopes.run(this, fn);
  }

  /** While the call runs: how a failure its code left behind ends it; `undefined` once it is over. */
  failWith(fail: ((error: EntrypointError) => void) | undefined): void {
    this.#fail = fail;
  }

  fail(error: EntrypointError): boolean {
    if (!this.#fail) return false;
    this.#fail(error);
    return true;
  }
}

const scopes = new AsyncLocalStorage<NodeCallScope>();

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
