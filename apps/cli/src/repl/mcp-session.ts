import type { McpSession } from '@birdie/graph';
import type { ReplState } from './state.js';

/** The session's enabled MCP servers (started as a turn would start them); undefined when none can be reached. */
export async function mcpSession(state: ReplState): Promise<McpSession | undefined> {
  const session = await state.rt.agent.mcpSession(state.session.id).catch(() => undefined);
  return session && session.servers.length > 0 ? session : undefined;
}
