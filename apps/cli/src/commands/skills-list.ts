import { isAgentMessage } from '@birdie/runtime/agents';
import { explicitConfigPath } from '@birdie/runtime/config';
import { readSettingsOrProblem } from '@birdie/runtime/settings-files';
import { skillListRows } from '@birdie/runtime/skill-list';
import { openTrustedRegistry } from '@birdie/runtime/skills';
import { relativeIfInside } from '@birdie/terminal/diagnostics';
import { reportLoad } from '@birdie/terminal/workspace-trust';
import type { CommandContext } from '../command-context.js';
import { EXIT_USAGE, write } from '../io.js';
import { printList } from '../render/list.js';

/** `birdie skills list`: name, kind, tools, on in new sessions (and which setting says so), and where each came from. */
export async function skillsListCommand({ io, values }: CommandContext): Promise<number> {
  const registry = await openTrustedRegistry(io, values);
  reportLoad(
    io,
    registry,
    registry.messages.filter((m) => !isAgentMessage(m, registry.agentDirectories)),
  );
  const { settings, problem } = await readSettingsOrProblem(io, explicitConfigPath(io, values));
  const rows = await skillListRows(io, values, registry, settings);
  const code = printList(io, values, rows, {
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
  // The list is still worth showing, but its DEFAULT column would answer for settings that were never read.
  if (problem === undefined) return code;
  write(
    io.stderr,
    `birdie: DEFAULT shows each skill's own default, not your settings: the config file cannot be used: ${problem}`,
  );
  return EXIT_USAGE;
}
