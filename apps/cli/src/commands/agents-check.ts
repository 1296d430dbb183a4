import { stat } from 'node:fs/promises';
import { isAgentMessage } from '@birdie/runtime/agents';
import { resolveFrom } from '@birdie/runtime/paths';
import { BUILTIN_TOOLS, openTrustedRegistry } from '@birdie/runtime/skills';
import type { AgentDefinition } from '@birdie/skill-parser';
import type { CommandContext } from '../command-context.js';
import { write } from '../io.js';
import type { DiagnosticLike } from '../render/diagnostics.js';
import { skippedLine } from '../render/workspace-trust.js';
import { missingPath, printCheckReport } from './check-report.js';

/**
 * `birdie agents check [DIR|FILE…]`, in `skills check`'s format. Without arguments, every agents folder birdie loads,
 * checked together (layering, and each agent against the skills and agents that load). A DIR is an agents folder, a
 * FILE one agent; their agents are checked against what birdie loads too, so an unknown skill shows up at once.
 */
export async function agentsCheckCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const messages: DiagnosticLike[] = [];
  const registry = await openTrustedRegistry(io, values);
  let agentCount = 0;
  if (positionals.length === 0) {
    agentCount = registry.current().agents.length;
    messages.push(...registry.messages.filter((m) => isAgentMessage(m, registry.agentDirectories)));
    const skipped = skippedLine(registry.current().untrusted);
    if (skipped) write(io.stderr, skipped);
  } else {
    const [parser, { checkAgents }] = await Promise.all([
      import('@birdie/skill-parser'),
      import('@birdie/registry'),
    ]);
    const agents: AgentDefinition[] = [];
    for (const target of positionals.map((p) => resolveFrom(io.cwd, p))) {
      const info = await stat(target).catch(() => undefined);
      if (!info) {
        messages.push(missingPath(target));
        continue;
      }
      if (info.isFile()) {
        const result = await parser.loadAgentFile(target);
        if (result.agent) agents.push(result.agent);
        messages.push(...result.messages);
      } else {
        const result = await parser.discoverAgents(target);
        agents.push(...result.agents);
        messages.push(...result.messages);
      }
    }
    agentCount = agents.length;
    const snapshot = registry.current();
    messages.push(
      ...checkAgents({
        skills: snapshot.skills,
        agents,
        knownAgents: snapshot.agents.map((agent) => agent.name),
        builtinTools: BUILTIN_TOOLS,
      }),
    );
  }
  return printCheckReport(io, messages, agentCount, 'agent');
}
