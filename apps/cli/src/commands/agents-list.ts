import { isAgentMessage } from '@birdie/runtime/agents';
import { openTrustedRegistry } from '@birdie/runtime/skills';
import type { CommandContext } from '../command-context.js';
import { EXIT_OK, write } from '../io.js';
import { relativeIfInside } from '../render/diagnostics.js';
import { styler, table } from '../render/style.js';
import { reportLoad } from '../render/workspace-trust.js';

/** `birdie agents list`: name, model, skills, subagents and handoffs, and where each agent came from. */
export async function agentsListCommand({ io, values }: CommandContext): Promise<number> {
  const registry = await openTrustedRegistry(io, values);
  reportLoad(
    io,
    registry,
    registry.messages.filter((m) => isAgentMessage(m, registry.agentDirectories)),
  );
  const snapshot = registry.current();
  const rows = snapshot.agents.map(({ positions: _, body: __, ...agent }) => ({
    ...agent,
    layer: snapshot.agentLayerOf(agent.name)?.layer ?? '',
  }));
  if (values.json) {
    for (const row of rows) write(io.stdout, JSON.stringify(row));
    return EXIT_OK;
  }
  const style = styler(io.stdout, io.env);
  if (rows.length === 0) {
    write(io.stdout, 'No agents found. Folders searched:');
    for (const d of registry.agentDirectories) write(io.stdout, `  ${d.layer}  ${d.path}`);
    write(io.stdout, '`birdie agents new NAME` makes one.');
    return EXIT_OK;
  }
  const list = (names: readonly string[] | undefined, absent: string) =>
    names === undefined ? absent : names.length ? names.join(', ') : '-';
  io.stdout.write(
    table(
      rows.map((r) => [
        r.name,
        r.model ?? '(default)',
        list(r.skills, '(session)'),
        list([...(r.subagents ?? []), ...(r.handoffs ?? []).map((h) => `→${h}`)], '-'),
        r.layer,
        relativeIfInside(io.cwd, r.file),
      ]),
      ['NAME', 'MODEL', 'SKILLS', 'AGENTS', 'LAYER', 'FILE'].map((h) => style('bold', h)),
    ),
  );
  return EXIT_OK;
}
