import { StopReason } from '@birdie/graph/stop-reason';
import { onOutputFailure } from './io.js';

/** Signals that end a command: Ctrl+C, a supervisor's or `timeout`'s SIGTERM, a closed terminal's SIGHUP. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/**
 * What stopped a command: one of the signals, or `SIGPIPE` — stdout or stderr can no longer be written (the reader
 * went away, the disk is full; see io.ts). Node ignores the real SIGPIPE, so this one is birdie's own.
 */
export type StopSignal = (typeof STOP_SIGNALS)[number] | 'SIGPIPE';

/** How each stop is said to the model and kept in the history, for a tool it cut off (Ctrl+C is the user's cancel). */
const STOP_NOTES: Record<Exclude<StopSignal, 'SIGINT'>, string> = {
  SIGTERM: 'Stopped because birdie was stopped (SIGTERM)',
  SIGHUP: 'Stopped because the terminal closed (SIGHUP)',
  SIGPIPE: "Stopped because birdie's output could no longer be written",
};

/** The abort reason for a command stopped by `signal`: its message is `what` (signal); a cut-off tool says why. */
export function stopReasonOf(signal: StopSignal, what: string): Error {
  const message = `${what} (${signal})`;
  return signal === 'SIGINT' ? new Error(message) : new StopReason(message, STOP_NOTES[signal]);
}

/**
 * Calls `handler` (once per signal) while installed; returns the uninstaller. Node's default for these signals is to
 * die on the spot, which skips every cleanup: tools run in their own process groups and would be left running, so a
 * running command must turn them into an abort instead. A second identical signal gets the default again.
 */
export function onStopSignal(
  handler: (signal: StopSignal) => void,
  signals: readonly (typeof STOP_SIGNALS)[number][] = STOP_SIGNALS,
  options: { startsProcesses?: boolean } = {},
): () => void {
  // A command that starts child processes ends them when stopped (`endChildProcesses`).
  if (options.startsProcesses !== false) readyToStop();
  const installed = signals.map((signal) => {
    const listener = () => handler(signal);
    process.once(signal, listener);
    return [signal, listener] as const;
  });
  // Output that can no longer be written stops the command as a signal would (io.ts).
  const stopListeningToOutput = onOutputFailure(() => handler('SIGPIPE'));
  return () => {
    stopListeningToOutput();
    for (const [signal, listener] of installed) process.removeListener(signal, listener);
  };
}

/**
 * Ends every child process birdie started (tools, MCP servers) and waits until they are gone: TERM to each process
 * group, KILL after `graceMs` to whatever ignored it. A command that was stopped by a signal calls this before it
 * returns, so nothing it started outlives it — not even a tool that traps TERM.
 */
export async function endChildProcesses(graceMs = 2_000): Promise<void> {
  const { stopAllProcesses } = await readyToStop();
  await stopAllProcesses({ graceMs });
}

let stopping: Promise<typeof import('@birdie/entrypoints')> | undefined;

/**
 * Loads what stopping needs while the command starts (a command that can be stopped installs its signals first): an
 * upgrade that replaces birdie's files while it runs cannot then take it away, and the stop ends the child processes.
 */
function readyToStop(): Promise<typeof import('@birdie/entrypoints')> {
  stopping ??= import('@birdie/entrypoints');
  // Nothing waits for it until a stop: a failure here is the stop's to report, not an unhandled rejection now.
  stopping.catch(() => {});
  return stopping;
}
