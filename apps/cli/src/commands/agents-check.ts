import { stat } from 'node:fs/promises';
import type { AgentDefinition } from '@birdie/skill-parser';
import { isAgentMessage } from '../agents.js';
import { EXIT_OK, EXIT_RUN, write } from '../io.js';
import type { CommandContext } from '../main.js';
import { resolveFrom } from '../paths.js';
import {
  type DiagnosticLike,
  formatDiagnostic,
  plural,
  sortDiagnostics,
  summarize,
} from '../render/diagnostics.js';
import { styler } from '../render/style.js';
import { BUILTIN_TOOLS, openTrustedRegistry } from '../skills.js';
import { skippedLine } from '../trust.js';

/**
 * `birdie agents check [DIR|FILE…]`, in `skills check`'s format. Without arguments, every agents folder birdie loads,
 * checked together (layering, and each agent against the skills and agents that load). A DIR is an agents folder, a
 * FILE one agent; their agents are checked against what birdie loads too, so an unknown skill shows up at once.
 */
export async function agentsCheckCommand({ io, values, positionals }: CommandContext): Promise<number> {
  const style = styler(io.stdout, io.env);
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
        messages.push({
          file: target,
          line: 1,
          column: 1,
          reason: 'no such file or folder',
          ruleId: 'missing-path',
          fatal: true,
          source: 'birdie',
        });
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
  const sorted = sortDiagnostics(messages);
  for (const m of sorted) write(io.stdout, formatDiagnostic(m, io.cwd, style));
  const { errors, warnings, infos } = summarize(sorted);
  const summary = `${plural(agentCount, 'agent')} loaded: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}, ${infos} info`;
  if (sorted.length) write(io.stdout, '');
  write(io.stdout, errors ? style('red', summary) : style('green', summary));
  return errors ? EXIT_RUN : EXIT_OK;
}
