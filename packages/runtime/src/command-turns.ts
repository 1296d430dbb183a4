import type { McpSession } from '@birdie/graph';
import {
  type CommandClash,
  type CustomCommand,
  expandCommand,
  loadCustomCommands,
} from './custom-commands.js';
import {
  isPromptArgumentsError,
  promptArgumentCandidates,
  promptCommands,
  promptTurnText,
} from './mcp-prompts.js';
import type { Runtime } from './runtime.js';

/** The session's enabled MCP servers (started as a turn would start them); undefined when none can be reached. */
export async function sessionMcp(rt: Runtime, sessionId: string): Promise<McpSession | undefined> {
  const session = await rt.agent.mcpSession(sessionId).catch(() => undefined);
  return session && session.servers.length > 0 ? session : undefined;
}

/**
 * The custom commands in force for a session (read again at each use: adding a file needs no restart), the
 * session's MCP prompts last (built-in > user > project > MCP prompt), with the clashes among names.
 */
export async function commandsInForce(
  rt: Runtime,
  sessionId: string,
  builtins: readonly string[],
): Promise<{ commands: CustomCommand[]; clashes: CommandClash[] }> {
  const mcp = await sessionMcp(rt, sessionId).catch(() => undefined);
  return loadCustomCommands({
    env: rt.io.env,
    cwd: rt.cwd,
    projectTrusted: rt.workspaceTrusted(),
    builtins,
    mcp: mcp ? promptCommands(await mcp.prompts().catch(() => [])) : [],
  });
}

/**
 * What `/name ARGS` sends when a custom command has that name: the turn's text (`$ARGUMENTS` filled in, or an MCP
 * prompt's messages from `prompts/get`), the agent that answers it, and whether `@` mentions in it are the user's
 * (not in text an MCP server wrote). `problem` says why nothing is sent (`error`: a failure rather than a usage
 * mistake); undefined when no command has that name.
 */
export type CommandTurn =
  | { text: string; agent?: string; mentions: boolean }
  | { problem: string; error?: boolean };

export async function commandTurn(
  rt: Runtime,
  sessionId: string,
  name: string,
  args: string,
  builtins: readonly string[],
): Promise<CommandTurn | undefined> {
  const { commands } = await commandsInForce(rt, sessionId, builtins);
  const command = commands.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (!command) return undefined;
  if (command.prompt) {
    const prompt = command.prompt;
    const mcp = await sessionMcp(rt, sessionId);
    if (!mcp?.has(prompt.server))
      return { problem: `The MCP server ${prompt.server} is not available to this session.` };
    try {
      return { text: await promptTurnText(mcp, prompt, args), mentions: false };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { problem: message, ...(isPromptArgumentsError(error) ? {} : { error: true }) };
    }
  }
  if (command.agent !== undefined && !rt.registry.current().agents.some((a) => a.name === command.agent))
    return {
      problem: `/${command.name} names the agent "${command.agent}", which is not defined (${command.file})`,
    };
  return {
    text: expandCommand(command, args),
    ...(command.agent !== undefined ? { agent: command.agent } : {}),
    mentions: true,
  };
}

/**
 * Tab's candidates that need a server: a prompt command's argument names and values (`completion/complete`), and
 * `@server:` resource URIs. Undefined when the line is neither (the other completions apply).
 */
export function serverCandidates(
  session: McpSession | undefined,
  prompts: readonly CustomCommand[],
  line: string,
): Promise<string[]> | undefined {
  if (!session) return undefined;
  const word = line.slice(line.lastIndexOf(' ') + 1);
  const mention = /^@([^:\s@]+):/.exec(word);
  if (mention && session.has(mention[1] as string)) {
    const server = mention[1] as string;
    return session.resourceUris(server, 200).then((uris) => uris.map((uri) => `@${server}:${uri}`));
  }
  const command = /^\/(\S+)\s(.*)$/s.exec(line);
  const prompt = command ? prompts.find((c) => c.name === command[1])?.prompt : undefined;
  if (!command || !prompt) return undefined;
  return promptArgumentCandidates(session, prompt, command[2] as string);
}
