import { type BirdieServer, createServer, type LogEntry } from '@birdie/server';
import { RuntimeError } from './errors.js';
import { failureEntry } from './serve-log.js';
import type { ServeOptions } from './serve-options.js';
import type { ServeSetup } from './server-runtime.js';

/**
 * `birdie serve`'s HTTP server over a setup from `openServeRuntime`, with the options its flags gave: the setup's
 * runtime, workspaces and turn limits, the body and rate limits, CORS origins; requests, turns and failures go to
 * `log` (see `failureEntry`).
 */
export function createServeServer(
  setup: Pick<ServeSetup, 'runtime' | 'workspaces' | 'limits'>,
  options: Pick<ServeOptions, 'perMinute' | 'maxBodyBytes' | 'corsOrigins'>,
  hooks: { version: string; log: (entry: LogEntry) => void },
): BirdieServer {
  const { log } = hooks;
  return createServer({
    runtime: setup.runtime,
    workspaces: setup.workspaces,
    version: hooks.version,
    maxBodyBytes: options.maxBodyBytes,
    rateLimit: options.perMinute === 0 ? false : { requests: options.perMinute, perMs: 60_000 },
    limits: setup.limits,
    corsOrigins: options.corsOrigins,
    onError: (error, where, context) => log(failureEntry(error, where, context)),
    onLog: log,
  });
}

/** `listen()`, or a `RuntimeError` saying which address could not be listened on and why (`EADDRINUSE`, …). */
export async function listenOrFail<T>(listen: () => Promise<T>, host: string, port: number): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RuntimeError(
      `cannot listen on ${host}:${port}: ${code ?? (error as Error).message}`,
      undefined,
      {
        cause: error,
      },
    );
  }
}
