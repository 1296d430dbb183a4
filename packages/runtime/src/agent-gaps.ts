import type { Runtime } from './runtime.js';

/** What an agent names that this session does not give it: its skills that are off, and the tools it lacks. */
export interface AgentGaps {
  agent: string;
  /** Skills of its `skills:` that are loaded but not enabled in the session. */
  off: string[];
  /** Skills of its `skills:` that no skills folder has. */
  unknown: string[];
  /** Tools of its `tools:` it will not have. */
  tools: string[];
}

/**
 * The gaps between an agent file and the session it answers in, or undefined when it gets everything it names. An
 * agent gets only the session's enabled skills, so one whose skills are off would otherwise run with `task` alone.
 */
export async function agentGaps(
  rt: Pick<Runtime, 'registry' | 'policy' | 'agent'>,
  sessionId: string,
  name: string,
): Promise<AgentGaps | undefined> {
  const snapshot = rt.registry.current();
  const spec = snapshot.getAgent(name);
  if (!spec) return undefined;
  const enabled = new Set(rt.policy.allowedSkills(sessionId, snapshot).map((s) => s.name.toLowerCase()));
  const named = spec.skills ?? [];
  const off = named.filter((skill) => snapshot.getSkill(skill) && !enabled.has(skill.toLowerCase()));
  const unknown = named.filter((skill) => !snapshot.getSkill(skill));
  const has = new Set((await rt.agent.toolsFor(sessionId, { agent: spec.name })).map((t) => t.name));
  const tools = (spec.tools ?? []).filter((tool) => !has.has(tool));
  if (off.length + unknown.length + tools.length === 0) return undefined;
  return { agent: spec.name, off, unknown, tools };
}

/**
 * One line saying what the agent lacks and how to enable it: `flags` for a command (`--enable NAME`), `slash` for
 * the REPL (`/skill enable NAME`).
 */
export function agentGapLine(gaps: AgentGaps, how: 'flags' | 'slash'): string {
  const parts: string[] = [];
  if (gaps.off.length)
    parts.push(
      `its skill${plural(gaps.off)} ${gaps.off.join(', ')} ${gaps.off.length > 1 ? 'are' : 'is'} not enabled in this session`,
    );
  if (gaps.unknown.length)
    parts.push(
      `its skill${plural(gaps.unknown)} ${gaps.unknown.join(', ')} ${gaps.unknown.length > 1 ? 'are' : 'is'} not loaded (no skills folder has ${gaps.unknown.length > 1 ? 'them' : 'it'})`,
    );
  let line = `agent ${gaps.agent}: ${parts.join('; ')}`;
  if (gaps.tools.length)
    line += `${parts.length ? ', so it' : ' it'} lacks the tool${plural(gaps.tools)} ${gaps.tools.join(', ')}`;
  if (gaps.off.length === 0) return line;
  const enable =
    how === 'flags'
      ? `${gaps.off.map((skill) => `--enable ${skill}`).join(' ')} (for every session: birdie config set skills.enable …)`
      : gaps.off.map((skill) => `/skill enable ${skill}`).join(', ');
  return `${line}. Enable ${gaps.off.length > 1 ? 'them' : 'it'} with ${enable}`;
}

/** `/info`'s short form. */
export function agentGapSummary(gaps: AgentGaps | undefined, agent: string): string {
  if (!gaps) return `${agent}: its skills and tools are all enabled`;
  const parts = [
    ...(gaps.off.length ? [`skills ${gaps.off.join(', ')} not enabled`] : []),
    ...(gaps.unknown.length ? [`skills ${gaps.unknown.join(', ')} not loaded`] : []),
  ];
  const tools = gaps.tools.length ? ` (missing tools: ${gaps.tools.join(', ')})` : '';
  return `${agent}: ${parts.join('; ') || 'some tools missing'}${tools}`;
}

function plural(list: readonly string[]): string {
  return list.length > 1 ? 's' : '';
}
