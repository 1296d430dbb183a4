import { commandTurn } from '@birdie/runtime/command-turns';
import type { CommandClash, CustomCommand } from '@birdie/runtime/custom-commands';
import { promptUsage } from '@birdie/runtime/mcp-prompts';
import { relativeIfInside } from '@birdie/terminal/diagnostics';
import { visible } from '@birdie/terminal/terminal-text';
import { out, type ReplState } from './state.js';

/** `/help`'s rows for the custom commands, and one line per clash saying which command hides which. */
export function customHelp(
  state: ReplState,
  found: { commands: CustomCommand[]; clashes: CommandClash[] },
): { rows: string[][]; clashes: string[] } {
  const where = (c: CustomCommand) =>
    c.prompt ? c.file : `${c.layer} ${relativeIfInside(state.rt.cwd, c.file)}`;
  // All of it is the command files' text (or an MCP server's): pictured, not sent to the terminal.
  const rows = found.commands.map((c) =>
    [
      c.prompt ? promptUsage(c.prompt) : `/${c.name}${c.template.includes('$ARGUMENTS') ? ' ARGUMENTS' : ''}`,
      `${c.description ?? '(no description)'}${c.agent ? ` · agent ${c.agent}` : ''} · ${where(c)}`,
    ].map(visible),
  );
  const clashes = found.clashes.map((clash) =>
    visible(
      `/${clash.name} of ${where(clash.hidden)} is hidden by ${clash.by === 'built-in' ? 'the built-in command' : `the ${where(clash.by)}`}`,
    ),
  );
  return { rows, clashes };
}

/**
 * Runs `/name ARGS` when a custom command has that name: its message is sent as a turn, answered by its `agent`
 * when it names one (as `/agent NAME`: from this turn on). False when there is no such command.
 */
export async function runCustomCommand(
  state: ReplState,
  name: string,
  args: string,
  builtins: readonly string[],
): Promise<boolean> {
  const turn = await commandTurn(state.rt, state.session.id, name, args, builtins);
  if (!turn) return false;
  if ('problem' in turn) {
    out(state, `${turn.error ? `${state.style('red', 'error:')} ` : ''}${turn.problem}`);
    return true;
  }
  if (turn.agent !== undefined) state.nextAgent = turn.agent;
  const { replTurn } = await import('./turn.js');
  await replTurn(state, turn.text, { mentions: turn.mentions });
  return true;
}
