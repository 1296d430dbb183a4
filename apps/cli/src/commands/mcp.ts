import { mcpHttpNotes, mcpOptions } from '@birdie/runtime/mcp-options';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, type Io, write } from '../io.js';
import { type DiagnosticLike, reloadProblemReporter } from '@birdie/terminal/diagnostics';
import { reportLoad } from '@birdie/terminal/workspace-trust';
import { endChildProcesses, onStopSignal } from '../stop-signals.js';
import { cliVersion } from '../version.js';

/**
 * `birdie mcp`: the skills as an MCP server (see `@birdie/runtime/mcp-server`). Over stdio (the default) stdout
 * carries the protocol and nothing else: every note goes to stderr, and ends when the client has closed stdin and
 * each request it made is answered (or at once on SIGTERM/SIGINT). With `--http PORT`, the streamable HTTP transport at /mcp, as `birdie serve` runs (tokens, the
 * operator's policy, workspaces, the sandbox), until SIGTERM/SIGINT.
 */
export async function mcpCommand({ io, values }: CommandContext): Promise<number> {
  const { http } = mcpOptions(values);
  // Nothing but the protocol on stdout: the runtime's notes go to stderr (and so does anything else in the process
  // that writes to stdout, see `processIo`).
  const logIo: Io = { ...io, stdout: io.stderr };
  const { openMcpHost } = await import('@birdie/runtime/mcp-host');
  // The problems of a skill file edited while the server runs are said on stderr, as at start-up (`reportLoad`).
  let onReload: (messages: readonly DiagnosticLike[]) => void = () => {};
  const host = await openMcpHost(logIo, values, {
    http: http !== undefined,
    onReload: (messages) => onReload(messages),
  });
  const info = { name: 'birdie', version: cliVersion() };
  try {
    reportLoad(logIo, host.registry);
    onReload = reloadProblemReporter(logIo, host.registry.messages);
    if (http === undefined) {
      const { serveMcpStdio } = await import('@birdie/runtime/mcp-server');
      // A signal stops at once (running calls are aborted); the end of stdin lets them answer first.
      const stopping = new AbortController();
      const served = serveMcpStdio(host, {
        userId: host.userId,
        info,
        input: io.stdin,
        output: io.stdout,
        signal: stopping.signal,
      });
      const stopListening = onStopSignal(() => {
        stopping.abort();
        io.stdin.destroy();
      });
      try {
        await served;
      } finally {
        stopListening();
      }
      return EXIT_OK;
    }
    const { createMcpHttp } = await import('@birdie/runtime/mcp-http');
    const { failureEntry, terminalSafe } = await import('@birdie/runtime/serve-log');
    const endpoint = await createMcpHttp(host, {
      info,
      ...(http.perMinute !== undefined ? { perMinute: http.perMinute } : {}),
      // A store's failure is its one sentence; anything else, a defect, keeps its stack.
      onError: (error) =>
        write(io.stderr, `birdie: ${terminalSafe(failureEntry(error, 'MCP endpoint').msg)}`),
    });
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const stopListening = onStopSignal(() => stop());
    try {
      const { listenOrFail } = await import('@birdie/runtime/serve-server');
      const address = await listenOrFail(() => endpoint.listen(http), http.host, http.port);
      for (const note of mcpHttpNotes(host)) write(io.stderr, `birdie: ${note}`);
      // The one line a supervisor or a test waits for.
      write(io.stdout, `listening on ${address.url}/mcp`);
      await stopped;
      return EXIT_OK;
    } finally {
      stopListening();
      await endpoint.close();
    }
  } finally {
    await host.close();
    await endChildProcesses();
  }
}
