import { isAgentMessage } from '@birdie/runtime/agents';
import { openTrustedRegistry } from '@birdie/runtime/skills';
import type { CommandContext } from '../command-context.js';
import { relativeIfInside } from '@birdie/terminal/diagnostics';
import { printList } from '../render/list.js';
import { reportLoad } from '@birdie/terminal/workspace-trust';

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
  const list = (names: readonly string[] | undefined, absent: string) =>
    names === undefined ? absent : names.length ? names.join(', ') : '-';
  return printList(io, values, rows, {
    empty: [
      'No agents found. Folders searched:',
      ...registry.agentDirectories.map((d) => `  ${d.layer}  ${d.path}`),
      '`birdie agents new NAME` makes one.',
    ],
    header: ['NAME', 'MODEL', 'SKILLS', 'AGENTS', 'LAYER', 'FILE'],
    row: (r) => [
      r.name,
      r.model ?? '(default)',
      list(r.skills, '(session)'),
      list([...(r.subagents ?? []), ...(r.handoffs ?? []).map((h) => `→${h}`)], '-'),
      r.layer,
      relativeIfInside(io.cwd, r.file),
    ],
  });
}
