import {
  type CommandClash,
  type CustomCommand,
  expandCommand,
  loadCustomCommands,
} from '@birdie/runtime/custom-commands';
import { promptUsage } from '@birdie/runtime/mcp-prompts';
import { relativeIfInside } from '../render/diagnostics.js';
import { mcpPromptCommands, runMcpPrompt } from './slash-mcp.js';
import { out, type ReplState } from './state.js';

/**
 * The custom commands in force for this REPL (read again at each use: adding a file needs no restart), the session's
 * MCP prompts last (built-in > user > project > MCP prompt).
 */
export async function customCommands(
  state: ReplState,
  builtins: readonly string[],
): Promise<{ commands: CustomCommand[]; clashes: CommandClash[] }> {
  return loadCustomCommands({
    env: state.rt.io.env,
    cwd: state.rt.cwd,
    projectTrusted: state.rt.workspaceTrusted(),
    builtins,
    mcp: await mcpPromptCommands(state).catch(() => []),
  });
}

/** `/help`'s rows for the custom commands, and one line per clash saying which command hides which. */
export function customHelp(
  state: ReplState,
  found: { commands: CustomCommand[]; clashes: CommandClash[] },
): { rows: string[][]; clashes: string[] } {
  const where = (c: CustomCommand) =>
    c.prompt ? c.file : `${c.layer} ${relativeIfInside(state.rt.cwd, c.file)}`;
  const rows = found.commands.map((c) => [
    c.prompt ? promptUsage(c.prompt) : `/${c.name}${c.template.includes('$ARGUMENTS') ? ' ARGUMENTS' : ''}`,
    `${c.description ?? '(no description)'}${c.agent ? ` · agent ${c.agent}` : ''} · ${where(c)}`,
  ]);
  const clashes = found.clashes.map(
    (clash) =>
      `/${clash.name} of ${where(clash.hidden)} is hidden by ${clash.by === 'built-in' ? 'the built-in command' : `the ${where(clash.by)}`}`,
  );
  return { rows, clashes };
}

/**
 * Runs `/name ARGS` when a custom command has that name: its message (`$ARGUMENTS` filled in) is sent as a turn,
 * answered by its `agent` when it names one. False when there is no such command.
 */
export async function runCustomCommand(
  state: ReplState,
  name: string,
  args: string,
  builtins: readonly string[],
): Promise<boolean> {
  const { commands } = await customCommands(state, builtins);
  const command = commands.find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (!command) return false;
  if (command.prompt) {
    await runMcpPrompt(state, command, args);
    return true;
  }
  if (command.agent !== undefined) {
    if (!state.rt.registry.current().agents.some((a) => a.name === command.agent)) {
      out(
        state,
        `/${command.name} names the agent "${command.agent}", which is not defined (${command.file})`,
      );
      return true;
    }
    // As `/agent NAME`: the agent answers from this turn on.
    state.nextAgent = command.agent;
  }
  const { replTurn } = await import('./turn.js');
  await replTurn(state, expandCommand(command, args));
  return true;
}
