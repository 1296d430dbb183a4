import type { DeclaredTool, McpManager, ToolsetBuilder } from '@birdie/graph/tools';
import type { LoadedRegistry, SkillPolicy } from '@birdie/registry';

/**
 * The tools of the MCP servers a session's skills declare (`mcp_server`), as `birdie mcp` passes them on: built by
 * the agent's own `ToolsetBuilder`, so each has the name the agent sees (prefixed with its server only on a clash)
 * and runs on one `McpManager` connection per server, opened the first time a session lists or calls them.
 */
export interface McpPassThrough {
  /**
   * The session's MCP tools (none when no allowed skill declares a server), and the servers that failed. `cwd` is the
   * folder the session's tools work in: the servers' root (`roots/list`), as in the agent's turn, unless the servers
   * are shared by several users (`sharedByUsers`), when they are given no root at all.
   */
  tools(sessionKey: string, cwd: string): Promise<{ tools: DeclaredTool[]; errors: Error[] }>;
  /** Hears that a server's tools changed (`notifications/tools/list_changed` from it). */
  onToolsChanged(listener: () => void): () => void;
  close(): Promise<void>;
}

export function mcpPassThrough(
  registry: LoadedRegistry,
  policy: SkillPolicy,
  /**
   * One server process serves every user of this host (`birdie mcp --http`): its root would be whichever user's
   * workspace listed or called last, so it gets none and is never told another user's folder.
   */
  options: { sharedByUsers?: boolean } = {},
): McpPassThrough {
  let built: Promise<{ manager: McpManager; builder: ToolsetBuilder }> | undefined;
  const listeners = new Set<() => void>();
  const open = () => {
    built ??= (async () => {
      const { McpManager, ToolsetBuilder, TOOL_LIMITS } = await import('@birdie/graph/tools');
      const manager = new McpManager({
        onNotice: (notice) => {
          if (notice.kind === 'tools-changed') for (const listener of listeners) listener();
        },
      });
      return { manager, builder: new ToolsetBuilder(policy, manager, TOOL_LIMITS) };
    })();
    return built;
  };
  return {
    async tools(sessionKey, cwd) {
      const snapshot = registry.current();
      // No server among the session's skills: nothing to load or start.
      if (!policy.allowedSkills(sessionKey, snapshot).some((skill) => skill.mcpServer !== undefined))
        return { tools: [], errors: [] };
      const { builder } = await open();
      const toolset = await builder.build(
        sessionKey,
        snapshot,
        undefined,
        options.sharedByUsers ? {} : { cwd },
      );
      return { tools: toolset.tools.filter((tool) => tool.kind === 'mcp'), errors: toolset.errors };
    },
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      if (built) await (await built).manager.close();
    },
  };
}
