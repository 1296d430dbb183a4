import { isAgentMessage } from '@birdie/runtime/agents';
import { explicitConfigPath } from '@birdie/runtime/config';
import { readSettings } from '@birdie/runtime/settings-files';
import { openTrustedRegistry } from '@birdie/runtime/skills';
import type { CommandContext } from '../command-context.js';
import { relativeIfInside } from '../render/diagnostics.js';
import { printList } from '../render/list.js';
import { reportLoad } from '../render/workspace-trust.js';

/** `birdie skills list`: name, kind, tools, on in new sessions (and which setting says so), and where each came from. */
export async function skillsListCommand({ io, values }: CommandContext): Promise<number> {
  const registry = await openTrustedRegistry(io, values);
  reportLoad(
    io,
    registry,
    registry.messages.filter((m) => !isAgentMessage(m, registry.agentDirectories)),
  );
  const snapshot = registry.current();
  // What every new session starts with: the skill's own default, then the settings (`skills.enable`, and
  // `skills.disable`, which wins), as a session is made.
  const { skills: chosen } = await readSettings(io, explicitConfigPath(io, values));
  const named = (names: readonly string[]) => new Set(names.map((n) => n.toLowerCase()));
  const [enabled, disabled] = [named(chosen.enable), named(chosen.disable)];
  const rows = snapshot.skills.map((skill) => {
    const layer = snapshot.layerOf(skill.name);
    const enabledByDefault = skill.enabledByDefault || registry.defaults.includes(skill.name);
    const key = skill.name.toLowerCase();
    const setting = disabled.has(key) ? 'skills.disable' : enabled.has(key) ? 'skills.enable' : undefined;
    return {
      name: skill.name,
      kind: skill.kind,
      tools: skill.tools.map((t) => t.name),
      enabledByDefault,
      // Only where the settings decide: elsewhere new sessions get `enabledByDefault`.
      ...(setting ? { newSessions: setting === 'skills.enable', setBy: setting } : {}),
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
      `${(r.newSessions ?? r.enabledByDefault) ? 'yes' : 'no'}${r.setBy ? ` (${r.setBy})` : ''}`,
      r.layer,
      relativeIfInside(io.cwd, r.dir),
    ],
  });
}
