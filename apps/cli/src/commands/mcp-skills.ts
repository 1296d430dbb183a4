import { addMcpSkill, listMcpSkills, removeMcpSkill } from '@birdie/runtime/mcp-skills';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';
import { printList } from '../render/list.js';

/** `birdie mcp add NAME -- COMMAND ARGS…` / `--url URL`: an MCP server as a skill of the user's own. */
export async function mcpAddCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const [name, ...command] = positionals;
  const { file } = await addMcpSkill(io, values, {
    name: name!,
    command,
    ...(typeof values.url === 'string' ? { url: values.url } : {}),
    ...(typeof values.description === 'string' ? { description: values.description } : {}),
  });
  write(io.stdout, `Added ${file}`);
  write(
    io.stdout,
    `It is disabled by default: enable it in a session with /skill enable ${name} (or birdie run --enable ${name}); \`birdie skills check\` checks it.`,
  );
  return EXIT_OK;
}

/** `birdie mcp list`: every loaded skill with an MCP server, those `mcp add` wrote marked. */
export async function mcpListCommand({ io, values }: CommandContext): Promise<number> {
  const servers = await listMcpSkills(io, values);
  return printList(io, values, servers, {
    header: ['NAME', 'TRANSPORT', 'COMMAND OR URL', 'LAYER'],
    row: (s) => [s.name, s.transport, s.target, `${s.layer}${s.added ? ' (mcp add)' : ''}`],
    empty: 'No MCP servers. Add one: birdie mcp add NAME -- COMMAND [ARGS…]',
  });
}

/** `birdie mcp remove NAME`: only what `birdie mcp add` wrote; the user's own files in the folder stay. */
export async function mcpRemoveCommand({ io, positionals }: CommandContext): Promise<number> {
  const { dir, file, kept } = await removeMcpSkill(io, positionals[0]!);
  if (kept.length === 0) write(io.stdout, `Removed ${dir}`);
  else {
    write(io.stdout, `Removed ${file}`);
    write(io.stdout, `Kept ${dir}: it holds files \`birdie mcp add\` did not write: ${kept.join(', ')}`);
  }
  return EXIT_OK;
}
