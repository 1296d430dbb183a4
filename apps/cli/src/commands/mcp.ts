import type { CommandContext } from '../command-context.js';
import { consoleToStderr } from '../console-to-stderr.js';
import { CliError, EXIT_OK, EXIT_RUN, type Io, UsageError, write } from '../io.js';
import { reportSkillProblems } from '../render/diagnostics.js';
import { skippedLine } from '../render/workspace-trust.js';
import { endChildProcesses, onStopSignal } from '../stop-signals.js';
import { cliVersion } from '../version.js';

/**
 * `birdie mcp`: the skills as an MCP server (see `@birdie/runtime/mcp-server`). Over stdio (the default) stdout
 * carries the protocol and nothing else: every note goes to stderr, and ends when the client closes stdin (or on
 * SIGTERM/SIGINT). With `--http PORT`, the streamable HTTP transport at /mcp, as `birdie serve` runs (tokens, the
 * operator's policy, workspaces, the sandbox), until SIGTERM/SIGINT.
 */
export async function mcpCommand({ io, values }: CommandContext): Promise<number> {
  const http = values.http === undefined ? undefined : port(values.http);
  if (http === undefined)
    for (const flag of ['host', 'workspaces', 'rate-limit'])
      if (values[flag] !== undefined) throw new UsageError(`--${flag} needs --http`);
  if (http !== undefined && (values.enable !== undefined || values.disable !== undefined))
    throw new UsageError(
      "--enable and --disable do not apply with --http: the operator's settings decide (serve.skills, skills.disable)",
    );
  const perMinute = rateLimit(values['rate-limit']);
  // Nothing but the protocol on stdout: the runtime's notes (and a library's stray console.log) go to stderr.
  const logIo: Io = { ...io, stdout: io.stderr };
  const restoreConsole = consoleToStderr();
  const { openMcpHost } = await import('@birdie/runtime/mcp-host');
  const host = await openMcpHost(logIo, values, { http: http !== undefined });
  const info = { name: 'birdie', version: cliVersion() };
  try {
    reportSkillProblems(host.registry.messages, logIo);
    const skipped = skippedLine(host.registry.current().untrusted);
    if (skipped) write(io.stderr, skipped);
    if (http === undefined) {
      const { serveMcpStdio } = await import('@birdie/runtime/mcp-server');
      const served = serveMcpStdio(host, { userId: host.userId, info, input: io.stdin, output: io.stdout });
      const stopListening = onStopSignal(() => io.stdin.destroy());
      try {
        await served;
      } finally {
        stopListening();
      }
      return EXIT_OK;
    }
    const { createMcpHttp } = await import('@birdie/runtime/mcp-http');
    const endpoint = await createMcpHttp(host, {
      info,
      perMinute,
      onError: (error) =>
        write(
          io.stderr,
          `birdie: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        ),
    });
    const hostName = typeof values.host === 'string' ? values.host : '127.0.0.1';
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const stopListening = onStopSignal(() => stop());
    try {
      const address = await endpoint.listen({ host: hostName, port: http }).catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        throw new CliError(`cannot listen on ${hostName}:${http}: ${code ?? String(error)}`, EXIT_RUN, {
          cause: error,
        });
      });
      const { isolation, sessions } = host.serve!;
      write(
        io.stderr,
        `birdie: approval ${host.approval}; workspaces in ${isolation.workspaces.root}; ${isolation.shellTools.length ? `shell tools sandboxed (${isolation.sandboxVersion})` : 'no shell or Python tools'}; tokens: birdie tokens create --user NAME`,
      );
      write(
        io.stderr,
        `birdie: up to ${sessions.total} MCP sessions (${sessions.perUser} per user), closed after ${sessions.idleMs / 1000} s idle (serve.limits.mcp_*)`,
      );
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
    restoreConsole();
  }
}

function port(value: unknown): number {
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`--http must be a port from 0 to 65535, got "${String(value)}"`);
  return n;
}

function rateLimit(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(n) || n < 0 || n > 1_000_000)
    throw new UsageError(`--rate-limit must be a whole number from 0 to 1000000, got "${String(value)}"`);
  return n;
}
