import type { RunningChannels } from '@birdie/channels';
import type { ServeSetup } from '@birdie/runtime/server-runtime';
import type { CommandContext } from '../command-context.js';
import { CliError, EXIT_OK, EXIT_USAGE, type Io, write } from '../io.js';
import { reportSkillProblems } from '@birdie/terminal/diagnostics';
import { endChildProcesses, onStopSignal } from '../stop-signals.js';

/** A timestamped line on stderr (the channels never give it a secret, and scrub the configured ones anyway). */
export function channelLog(io: Io): (line: string) => void {
  return (line) => write(io.stderr, `${new Date().toISOString()} ${line}`);
}

/** Starts the configured chat channels on a runtime opened for `serve`; a configuration problem is a usage error. */
export async function startChatChannels(
  setup: ServeSetup,
  log: (line: string) => void,
): Promise<RunningChannels> {
  const { isChannelError, startChannels } = await import('@birdie/channels');
  try {
    return await startChannels(setup, { log });
  } catch (error) {
    if (isChannelError(error))
      throw new CliError(
        `birdie channels: ${error.message}`,
        error.code === 'platform-failed' ? undefined : EXIT_USAGE,
        { cause: error },
      );
    throw error;
  }
}

/**
 * `birdie channels`: the chat channels (Telegram, …) of the settings' `channels` section, in the foreground, on a
 * runtime opened as `birdie serve` opens one (the operator's policy, workspaces, sandbox), until SIGTERM/SIGINT.
 */
export async function channelsCommand({ io, values }: CommandContext): Promise<number> {
  const { openServeRuntime } = await import('@birdie/runtime/server-runtime');
  const setup = await openServeRuntime(io, values, {
    opened: (rt) => reportSkillProblems(rt.registry.messages, io),
  });
  let running: RunningChannels | undefined;
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  const stopListening = onStopSignal(() => stop());
  try {
    running = await startChatChannels(setup, channelLog(io));
    // The one line a supervisor or a test waits for.
    write(io.stdout, `channels: ${Object.keys(running.channels).join(', ')}`);
    await stopped;
    return EXIT_OK;
  } finally {
    stopListening();
    await running?.stop();
    await setup.rt.close();
    await endChildProcesses();
  }
}
