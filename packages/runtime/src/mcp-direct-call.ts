import type { DeclaredTool } from '@birdie/graph/tools';
import type { LoadedRegistry } from '@birdie/registry';
import { type RuntimeIo, warn } from './io.js';
import { mcpPassThrough } from './mcp-passthrough.js';

/** The policy key of the one-off "session" `birdie tool` lists MCP tools under. */
const DIRECT_CALL = 'birdie-tool';

/** What the servers answered: the tool when one lists it (`close` stops the servers), else the names they list. */
export type McpToolSearch =
  | { tool: DeclaredTool; close(): Promise<void> }
  | { tool?: undefined; listed: string[] };

/**
 * The MCP tool of that name, for `birdie tool`: no skill declares it in `## Tools`, so the servers the trusted skills
 * declare (`mcp_server`) are started and asked, the way the agent's turn asks them, and the tool gets the name the
 * agent would see (prefixed with its server only on a clash). Untrusted project skills are not in the snapshot, so
 * their servers are never started. A server that fails to start is said on `io.stderr` (it may be the one that has
 * the tool).
 */
export async function findMcpTool(
  io: RuntimeIo,
  registry: LoadedRegistry,
  name: string,
  cwd: string,
): Promise<McpToolSearch> {
  const servers = registry.current().skills.filter((skill) => skill.mcpServer !== undefined);
  if (servers.length === 0) return { listed: [] };
  const { SkillPolicy } = await import('@birdie/registry');
  const policy = new SkillPolicy(registry);
  // Every trusted server may answer, enabled or not: `birdie tool` runs any trusted skill's tool, as for `## Tools`.
  for (const skill of servers) policy.enable(DIRECT_CALL, skill.name);
  warn(
    io,
    `no skill declares a tool "${name}"; asking the MCP servers of ${servers.map((s) => s.name).join(', ')}`,
  );
  const passThrough = mcpPassThrough(registry, policy);
  try {
    const { tools, errors } = await passThrough.tools(DIRECT_CALL, cwd);
    const tool = tools.find((t) => t.name === name);
    if (tool) return { tool, close: () => passThrough.close() };
    for (const error of errors) warn(io, error.message);
    await passThrough.close();
    return { listed: tools.map((t) => t.name) };
  } catch (error) {
    await passThrough.close();
    throw error;
  }
}
