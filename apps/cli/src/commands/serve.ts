import type { RunningChannels } from '@birdie/channels';
import { type LogFormat, linesToLog, type ServeLog, serveLog } from '@birdie/runtime/serve-log';
import { serveNotes } from '@birdie/runtime/serve-notes';
import { serveOptions } from '@birdie/runtime/serve-options';
import { unattendedRecord } from '@birdie/runtime/unattended-log';
import type { UnattendedEvent, UnattendedLoop } from '@birdie/runtime/unattended-loop';
import { unattendedSentence } from '@birdie/runtime/unattended-sentence';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, type Io, logStrayFailuresTo, write } from '../io.js';
import { reportLoad } from '@birdie/terminal/workspace-trust';
import { applyServeHeapFlags } from '../serve-heap.js';
import { endChildProcesses, onStopSignal, type StopSignal } from '../stop-signals.js';
import { cliVersion } from '../version.js';

/** The task loop's events in the server's log: a sentence, and with `--log-format json` the record's fields too. */
function taskLogger(log: ServeLog, format: LogFormat) {
  return (event: UnattendedEvent) => {
    // The skills' problems were reported when the server loaded them.
    if (event.type === 'skill-problems') return;
    const failed = event.type === 'error' || (event.type === 'run-end' && event.run.result.status !== 'ok');
    log({
      level: failed ? 'warn' : 'info',
      msg: unattendedSentence(event),
      ...(format === 'json' ? unattendedRecord(event) : {}),
    });
  };
}

/**
 * `birdie serve`: the HTTP API over this process's runtime until SIGTERM/SIGINT, then a graceful stop: no new
 * requests, running turns get `--grace` seconds, the rest are cancelled, tools and MCP servers are ended.
 */
export async function serveCommand({ io, values }: CommandContext): Promise<number> {
  const options = serveOptions(values);
  // A server runs for days under a load it does not choose: its heap follows what is live, not the machine's load.
  applyServeHeapFlags();
  const { host, port, graceMs, metrics } = options;
  const log = serveLog(io.stderr, options.logFormat);
  const say = (msg: string) => log({ level: 'info', msg });
  // Under --log-format json, what the runtime writes to stderr is logged too: every line of stderr is JSON.
  const logged: Io = options.logFormat === 'json' ? { ...io, stderr: linesToLog(log) } : io;
  // A skill tool's stray failure (see io.ts) is an entry of the log too, written at once: the next may be the last.
  const unlogStrayFailures = logStrayFailuresTo((line) => {
    log({ level: 'error', msg: line.replace(/^birdie: /, '') });
    log.flush();
  });
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
  let tasks: UnattendedLoop | undefined;
  const { createServeServer, listenOrFail } = await import('@birdie/runtime/serve-server');
  const server = createServeServer(setup, options, { version: cliVersion(), log });
  let stopSignal: (signal: StopSignal) => void = () => {};
  const stopped = new Promise<StopSignal>((resolve) => {
    stopSignal = resolve;
  });
  const stopListening = onStopSignal((signal) => stopSignal(signal));
  try {
    const address = await listenOrFail(() => server.listen({ host, port }), host, port);
    if (metrics) {
      const listener = await listenOrFail(() => server.listenMetrics(metrics), metrics.host, metrics.port);
      say(`metrics on ${listener.url}/metrics`);
    }
    for (const note of serveNotes(setup, { host, ...(metrics ? { metricsHost: metrics.host } : {}) }))
      say(note);
    // The users' scheduled tasks, each in its user's workspace under this policy (once across the workers).
    const { startServerTasks } = await import('@birdie/runtime/server-tasks');
    tasks = await startServerTasks(setup, { onEvent: taskLogger(log, options.logFormat) });
    if (values.channels === true) {
      const { startChatChannels } = await import('./channels.js');
      channels = await startChatChannels(setup, say);
    }
    // The one line a supervisor or a test waits for.
    write(io.stdout, `listening on ${address.url}`);
    const signal = await stopped;
    say(`${signal}: stopping (running turns get ${graceMs / 1000} s)`);
    const [outcome] = await Promise.all([server.close({ graceMs }), tasks?.stop(graceMs)]);
    say(`stopped (${outcome.finished} turn(s) finished, ${outcome.cancelled} cancelled)`);
    return EXIT_OK;
  } finally {
    log.flush();
    unlogStrayFailures();
    stopListening();
    await channels?.stop();
    await tasks?.stop(0);
    await server.close({ graceMs: 0 });
    await rt.close();
    await endChildProcesses();
    log.flush();
  }
}
