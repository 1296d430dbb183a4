import type { LoadedRegistry } from '@birdie/registry';
import { loadCustomCommands } from './custom-commands.js';
import type { DiagnosticLike } from './diagnostics.js';
import type { Flags } from './flags.js';
import type { RuntimeIo } from './io.js';
import { promptCommands, shadowedPromptDiagnostics } from './mcp-prompts.js';
import { workingDir } from './skills.js';
import { folderTrusted, readTrust } from './trust.js';

/**
 * `skills check`'s `mcp-prompt-shadowed` warnings: the prompts of the MCP servers a new session uses (skills enabled
 * by default; each server started and asked for its prompts, then stopped), ordered against the user's and the
 * trusted project's commands as the REPL orders them. A server that does not start is left out (its own problem shows
 * when a session uses it).
 */
export async function shadowedMcpPrompts(
  io: RuntimeIo,
  values: Flags,
  registry: LoadedRegistry,
): Promise<DiagnosticLike[]> {
  const skills = registry.current().skills.filter((s) => s.mcpServer !== undefined && s.enabledByDefault);
  if (skills.length === 0) return [];
  const { McpManager, McpSession } = await import('@birdie/graph');
  const manager = new McpManager({ connectTimeoutMs: 15_000 });
  const cwd = workingDir(io, values);
  // The roots a session in this folder gives its servers: a server may offer other prompts without them.
  manager.setRoots([cwd]);
  try {
    const started = await Promise.allSettled(skills.map((s) => manager.tools(s.name, s.mcpServer as never)));
    const servers = skills.filter((_, i) => started[i]?.status === 'fulfilled').map((s) => s.name);
    const prompts = await new McpSession(manager, 'skills-check', servers).prompts();
    if (prompts.length === 0) return [];
    const { openUserStore } = await import('./user-store.js');
    const store = await openUserStore(io, values);
    const trust = await readTrust(store).finally(() => store.close());
    // Built-in names have no `:`, so only a user or project command can hide a `server:prompt`.
    const { clashes } = await loadCustomCommands({
      env: io.env,
      cwd,
      projectTrusted: folderTrusted(values, cwd, trust, registry.current()),
      builtins: [],
      mcp: promptCommands(prompts),
    });
    return shadowedPromptDiagnostics(clashes, (server) => skills.find((s) => s.name === server)?.file);
  } finally {
    await manager.close();
  }
}
