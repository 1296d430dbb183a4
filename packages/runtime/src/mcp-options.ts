import { UsageError } from './errors.js';
import type { Flags } from './flags.js';
import type { McpHost } from './mcp-host.js';
import { wholeNumberFlag } from './number-flags.js';

/** What `birdie mcp`'s flags ask for: stdio (no `http`), or streamable HTTP on a port. */
export interface McpOptions {
  http?: {
    port: number;
    host: string;
    /** Requests per minute per token (`--rate-limit`; 0 turns the limit off); absent: `createMcpHttp`'s default. */
    perMinute?: number;
  };
}

/**
 * The options of `birdie mcp` from its flags (`http`, `host`, `workspaces`, `rate-limit`): the HTTP ones are usage
 * errors without `--http`, and `--enable`/`--disable` with it (the operator's settings decide, as for `birdie serve`).
 */
export function mcpOptions(flags: Flags): McpOptions {
  if (flags.http === undefined) {
    for (const flag of ['host', 'workspaces', 'rate-limit'])
      if (flags[flag] !== undefined) throw new UsageError(`--${flag} needs --http`);
    return {};
  }
  const port = wholeNumberFlag(flags, 'http', { fallback: 0, min: 0, max: 65535 });
  if (flags.enable !== undefined || flags.disable !== undefined)
    throw new UsageError(
      "--enable and --disable do not apply with --http: the operator's settings decide (serve.skills, skills.disable)",
    );
  const perMinute =
    flags['rate-limit'] === undefined
      ? undefined
      : wholeNumberFlag(flags, 'rate-limit', { fallback: 600, min: 0, max: 1_000_000 });
  const host = typeof flags.host === 'string' ? flags.host : '127.0.0.1';
  return { http: { port, host, ...(perMinute !== undefined ? { perMinute } : {}) } };
}

/** `birdie mcp --http`'s start-up notes: approval mode, where users' tools run, and the MCP session limits. */
export function mcpHttpNotes(host: Pick<McpHost, 'approval' | 'serve'>): string[] {
  if (!host.serve) return [];
  const { isolation, sessions } = host.serve;
  const tools = isolation.shellTools.length
    ? `shell tools sandboxed (${isolation.sandboxVersion})`
    : 'no shell or Python tools';
  return [
    `approval ${host.approval}; workspaces in ${isolation.workspaces.root}; ${tools}; tokens: birdie tokens create --user NAME`,
    `up to ${sessions.total} MCP sessions (${sessions.perUser} per user), closed after ${sessions.idleMs / 1000} s idle (serve.limits.mcp_*)`,
  ];
}
