import { isAgentMessage } from '@birdie/runtime/agents';
import { openTrustedRegistry } from '@birdie/runtime/skills';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';
import { relativeIfInside } from '../render/diagnostics.js';
import { styler, table } from '../render/style.js';
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
  if (values.json) {
    for (const row of rows) write(io.stdout, JSON.stringify(row));
    return EXIT_OK;
  }
  const style = styler(io.stdout, io.env);
  if (rows.length === 0) {
    write(io.stdout, 'No skills found. Folders searched:');
    for (const d of registry.directories) write(io.stdout, `  ${d.layer}  ${d.path}`);
    return EXIT_OK;
  }
  io.stdout.write(
    table(
      rows.map((r) => [
        r.name,
        r.kind,
        r.tools.length ? r.tools.join(', ') : '-',
        r.enabledByDefault ? 'yes' : 'no',
        r.layer,
        relativeIfInside(io.cwd, r.dir),
      ]),
      ['NAME', 'KIND', 'TOOLS', 'DEFAULT', 'LAYER', 'FOLDER'].map((h) => style('bold', h)),
    ),
  );
  return EXIT_OK;
}
