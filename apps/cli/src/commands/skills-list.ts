import { isAgentMessage } from '@birdie/runtime/agents';
import { skillListRows } from '@birdie/runtime/skill-list';
import { openTrustedRegistry } from '@birdie/runtime/skills';
import type { CommandContext } from '../command-context.js';
import { relativeIfInside } from '@birdie/terminal/diagnostics';
import { printList } from '../render/list.js';
import { reportLoad } from '@birdie/terminal/workspace-trust';

/** `birdie skills list`: name, kind, tools, on in new sessions (and which setting says so), and where each came from. */
export async function skillsListCommand({ io, values }: CommandContext): Promise<number> {
  const registry = await openTrustedRegistry(io, values);
  reportLoad(
    io,
    registry,
    registry.messages.filter((m) => !isAgentMessage(m, registry.agentDirectories)),
  );
  const rows = await skillListRows(io, values, registry);
  return printList(io, values, rows, {
    empty: [
      'No skills found. Folders searched:',
      ...registry.directories.map((d) => `  ${d.layer}  ${d.path}`),
    ],
    header: ['NAME', 'KIND', 'TOOLS', 'DEFAULT', 'LAYER', 'FOLDER'],
    row: (r) => [
      r.name,
      r.kind,
      r.tools.length ? r.tools.join(', ') : '-',
      `${(r.newSessions ?? r.enabledByDefault) ? 'yes' : 'no'}${r.setBy ? ` (${r.setBy})` : ''}`,
      r.layer,
      relativeIfInside(io.cwd, r.dir),
    ],
  });
}
