import { Readable, Writable } from 'node:stream';
import { agentFlag, approvalMode, openRuntime, waitMs } from '@birdie/runtime/runtime';
import { skillFlags } from '@birdie/runtime/skill-flags';
import type { CommandContext } from '../command-context.js';
import { type Io, write } from '../io.js';
import { reportLoad } from '@birdie/terminal/workspace-trust';
import { endChildProcesses, onStopSignal } from '../stop-signals.js';
import { cliVersion } from '../version.js';

/**
 * `birdie acp`: the Agent Client Protocol on stdin/stdout for an editor, over the same runtime as `run` and the REPL.
 * stdout carries the protocol and nothing else: the runtime writes its notes to stderr, and so does anything else in
 * the process that writes to stdout (a `node:` tool's `console.log`; see `processIo`). Ends when the editor closes stdin (or on SIGTERM/SIGINT), after the running turns stopped and
 * every tool process is gone.
 */
export async function acpCommand({ io, values }: CommandContext): Promise<number> {
  approvalMode(values); // a bad --approval fails before anything loads
  const wait = waitMs(values, 5);
  const protocol = { input: io.stdin, output: io.stdout };
  const logIo: Io = { ...io, stdout: io.stderr };
  const rt = await openRuntime(logIo, values);
  const log = (line: string) => write(io.stderr, line);
  try {
    reportLoad(logIo, rt.registry);
    const flags = skillFlags(rt, values);
    const agent = agentFlag(rt, values);
    // A session made here starts with --agent's agent; after that (and in a loaded session) whoever spoke last goes
    // on, so a handoff holds across turns.
    const approval = approvalMode(values, rt.config.settings.approval);
    const [{ serveAcp }, { ndJsonStream }, { acpRuntime }] = await Promise.all([
      import('@birdie/acp'),
      import('@agentclientprotocol/sdk'),
      import('@birdie/runtime/acp-runtime'),
    ]);
    const { runtime, settled } = acpRuntime(rt, {
      info: { name: 'birdie', version: cliVersion() },
      approval,
      waitMs: wait,
      flags,
      ...(agent !== undefined ? { agent } : {}),
      log,
    });
    const connection = serveAcp(
      runtime,
      ndJsonStream(
        Writable.toWeb(protocol.output) as WritableStream<Uint8Array>,
        Readable.toWeb(protocol.input) as ReadableStream<Uint8Array>,
      ),
    );
    const stopListening = onStopSignal((signal) => connection.close(new Error(`stopped by ${signal}`)));
    try {
      await connection.closed;
    } finally {
      stopListening();
    }
    // The connection's end aborted every prompt; their turns finish (tools killed, run log written) before the end.
    await settled();
    return 0;
  } finally {
    await rt.close();
    await endChildProcesses();
  }
}
