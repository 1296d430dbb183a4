import { isAgentMessage } from '@birdie/runtime/agents';
import { openTrustedRegistry } from '@birdie/runtime/skills';
import type { CommandContext } from '../command-context.js';
import { relativeIfInside } from '../render/diagnostics.js';
import { printList } from '../render/list.js';
import { reportLoad } from '../render/workspace-trust.js';

/** `birdie skills list`: name, kind, tools, enabled by default, and where each skill came from. */
export async function skillsListCommand({ io, values }: CommandContext): Promise<number> {
  const registry = await openTrustedRegistry(io, values);
  reportLoad(
    io,
    registry,
    registry.messages.filter((m) => !isAgentMessage(m, registry.agentDirectories)),
  );
  const snapshot = registry.current();
  const rows = snapshot.skills.map((skill) => {
    const layer = snapshot.layerOf(skill.name);
    return {
      name: skill.name,
      kind: skill.kind,
      tools: skill.tools.map((t) => t.name),
      enabledByDefault: skill.enabledByDefault || registry.defaults.includes(skill.name),
      layer: layer?.layer ?? '',
      dir: skill.dir,
    };
  });
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
      r.enabledByDefault ? 'yes' : 'no',
      r.layer,
      relativeIfInside(io.cwd, r.dir),
    ],
  });
}
