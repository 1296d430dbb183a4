import type { McpSession } from '@birdie/graph';
import type { CustomCommand } from '@birdie/runtime/custom-commands';
import {
  isPromptArgumentsError,
  promptArgumentCandidates,
  promptCommands,
  promptTurnText,
} from '@birdie/runtime/mcp-prompts';
import { mcpSession } from './mcp-session.js';
import { out, type ReplState } from './state.js';

/** The session's MCP prompts as `/server:prompt` commands (the lowest layer of custom commands). */
export async function mcpPromptCommands(state: ReplState): Promise<CustomCommand[]> {
  const session = await mcpSession(state);
  return session ? promptCommands(await session.prompts()) : [];
}

/** Runs `/server:prompt ARGS`: the prompt's messages (`prompts/get`) are sent as the user's turn. */
export async function runMcpPrompt(state: ReplState, command: CustomCommand, args: string): Promise<void> {
  const prompt = command.prompt;
  const session = await mcpSession(state);
  if (!prompt || !session?.has(prompt.server))
    return out(state, `The MCP server ${prompt?.server ?? ''} is not available to this session.`);
  let text: string;
  try {
    text = await promptTurnText(session, prompt, args);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const prefix = isPromptArgumentsError(error) ? '' : `${state.style('red', 'error:')} `;
    return out(state, `${prefix}${message}`);
  }
  const { replTurn } = await import('./turn.js');
  // The server wrote this text: an `@…` in it is not the user's mention.
  await replTurn(state, text, { mentions: false });
}

/**
 * Tab's candidates that need a server: a prompt command's argument names and values (`completion/complete`), and
 * `@server:` resource URIs. Undefined when the line is neither (the other completions apply).
 */
export function mcpCandidates(
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
