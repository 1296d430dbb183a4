import type { RunningChannels } from '@birdie/channels';
import { serveNotes } from '@birdie/runtime/serve-notes';
import type { CommandContext } from '../command-context.js';
import { CliError, EXIT_OK, EXIT_RUN, type Io, UsageError, write } from '../io.js';
import { reportLoad } from '../render/workspace-trust.js';
import { linesToLog, logFormat, serveLog } from '../serve/log.js';
import { endChildProcesses, onStopSignal, type StopSignal } from '../stop-signals.js';
import { cliVersion } from '../version.js';

/**
 * `birdie serve`: the HTTP API over this process's runtime until SIGTERM/SIGINT, then a graceful stop: no new
 * requests, running turns get `--grace` seconds, the rest are cancelled, tools and MCP servers are ended.
 */
export async function serveCommand({ io, values }: CommandContext): Promise<number> {
  const host = typeof values.host === 'string' ? values.host : '127.0.0.1';
  const port = integer(values.port, 'port', 8787, 0, 65535);
  const perMinute = integer(values['rate-limit'], 'rate-limit', 600, 0, 1_000_000);
  const maxBodyBytes = integer(values['max-body'], 'max-body', 1024 * 1024, 1024, 64 * 1024 * 1024);
  const graceMs = integer(values.grace, 'grace', 10, 0, 3600) * 1000;
  const corsOrigins = Array.isArray(values['cors-origin']) ? values['cors-origin'] : [];
  for (const origin of corsOrigins)
    if (!/^https?:\/\/[^/\s]+$/.test(origin))
      throw new UsageError(
        `--cors-origin must be an origin such as https://app.example.com, got "${origin}"`,
      );
  const metricsPort =
    values['metrics-port'] === undefined
      ? undefined
      : integer(values['metrics-port'], 'metrics-port', 0, 0, 65535);
  const metricsHost = typeof values['metrics-host'] === 'string' ? values['metrics-host'] : '127.0.0.1';
  if (metricsPort === undefined && values['metrics-host'] !== undefined)
    throw new UsageError('--metrics-host needs --metrics-port (the metrics listener is off without it)');
  const format = logFormat(values['log-format']);
  const log = serveLog(io.stderr, format);
  const say = (msg: string) => log({ level: 'info', msg });
  // Under --log-format json, what the runtime writes to stderr is logged too: every line of stderr is JSON.
  const logged: Io = format === 'json' ? { ...io, stderr: linesToLog(log) } : io;
  // The operator's policy is the ceiling of every API session's skills and agents, on every turn.
  const { openServeRuntime } = await import('@birdie/runtime/server-runtime');
  const setup = await openServeRuntime(logged, values, {
    opened(rt) {
      reportLoad(logged, rt.registry);
    },
  });
  const { rt } = setup;
  // `--channels`: the chat channels in this process, on the same runtime and store (issue 37).
  let channels: RunningChannels | undefined;
  const { createServer } = await import('@birdie/server');
  const server = createServer({
    runtime: setup.runtime,
    workspaces: setup.workspaces,
    version: cliVersion(),
    maxBodyBytes,
    rateLimit: perMinute === 0 ? false : { requests: perMinute, perMs: 60_000 },
    limits: setup.limits,
    corsOrigins,
    onError: (error, where, context) =>
      log({
        level: 'error',
        msg: `${where}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        ...context,
      }),
    onLog: log,
  });
  let stopSignal: (signal: StopSignal) => void = () => {};
  const stopped = new Promise<StopSignal>((resolve) => {
    stopSignal = resolve;
  });
  const stopListening = onStopSignal((signal) => stopSignal(signal));
  try {
    const address = await listenOrFail(() => server.listen({ host, port }), host, port);
    if (metricsPort !== undefined) {
      const metrics = await listenOrFail(
        () => server.listenMetrics({ host: metricsHost, port: metricsPort }),
        metricsHost,
        metricsPort,
      );
      say(`metrics on ${metrics.url}/metrics`);
    }
    for (const note of serveNotes(setup, { host, ...(metricsPort !== undefined ? { metricsHost } : {}) }))
      say(note);
    if (values.channels === true) {
      const { startChatChannels } = await import('./channels.js');
      channels = await startChatChannels(setup, say);
    }
    // The one line a supervisor or a test waits for.
    write(io.stdout, `listening on ${address.url}`);
    const signal = await stopped;
    say(`${signal}: stopping (running turns get ${graceMs / 1000} s)`);
    const outcome = await server.close({ graceMs });
    say(`stopped (${outcome.finished} turn(s) finished, ${outcome.cancelled} cancelled)`);
    return EXIT_OK;
  } finally {
    log.flush();
    stopListening();
    await channels?.stop();
    await server.close({ graceMs: 0 });
    await rt.close();
    await endChildProcesses();
    log.flush();
  }
}

function integer(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${String(value)}"`);
  return n;
}

async function listenOrFail<T>(listen: () => Promise<T>, host: string, port: number): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`cannot listen on ${host}:${port}: ${code ?? (error as Error).message}`, EXIT_RUN, {
      cause: error,
    });
  }
}
