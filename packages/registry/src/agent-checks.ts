import type { AgentDefinition, Skill, SourcePoint } from '@birdie/skill-parser';
import type { VFileMessage } from 'vfile-message';
import { type RegistryRuleId, RULES, registryMessage } from './diagnostics.js';
import { rawToolsNamedOnly } from './raw-command-rules.js';

/** What the checks need to know of the loaded skills and agents. */
export interface AgentCheckContext {
  /** The skills that loaded, after trust, layering and tool checks. */
  skills: readonly Skill[];
  /** The agents to check (each may name the others). */
  agents: readonly AgentDefinition[];
  /** Names of other agents that count as loaded (e.g. the registry's, when checking a folder outside it). */
  knownAgents?: readonly string[];
  /** Tools the application provides itself (never unknown). */
  builtinTools: readonly string[];
}

/**
 * Checks each agent against the other files: `subagents` and `handoffs` must name other agents (never the agent
 * itself), `skills` skills, `tools` and `approve` tools the agent can reach (a tool of one of its skills, or a
 * built-in). Each finding is a warning at the item's place, and the agent still loads: the missing file may appear
 * later (a folder the user has yet to trust, a skill being written). Tools of an MCP skill in reach are known only once its server runs, so with one in reach an
 * unknown tool name is not reported.
 */
export function checkAgents(context: AgentCheckContext): VFileMessage[] {
  const skillsByName = new Map<string, Skill>();
  for (const skill of context.skills) {
    skillsByName.set(skill.name, skill);
    if (!skillsByName.has(skill.name.toLowerCase())) skillsByName.set(skill.name.toLowerCase(), skill);
  }
  const findSkill = (name: string) => skillsByName.get(name) ?? skillsByName.get(name.toLowerCase());
  const agentNames = new Set(
    [...context.agents.map((agent) => agent.name), ...(context.knownAgents ?? [])].map((name) =>
      name.toLowerCase(),
    ),
  );
  const toolOwner = new Map<string, Skill>();
  for (const skill of context.skills) for (const tool of skill.tools) toolOwner.set(tool.name, skill);
  const builtins = new Set(context.builtinTools);

  const messages: VFileMessage[] = [];
  for (const agent of context.agents) {
    const found: VFileMessage[] = [];
    const report = (ruleId: RegistryRuleId, reason: string, at: SourcePoint | undefined) =>
      found.push(
        registryMessage(reason, {
          file: agent.file,
          line: at?.line ?? 1,
          column: at?.column ?? 1,
          ruleId,
          severity: 'warning',
        }),
      );
    const each = (
      key: 'skills' | 'tools' | 'approve' | 'subagents' | 'handoffs',
      fn: (name: string, at?: SourcePoint) => void,
    ) => {
      for (const [index, name] of (agent[key] ?? []).entries()) fn(name, agent.positions?.[key]?.[index]);
    };

    for (const key of ['subagents', 'handoffs'] as const) {
      each(key, (name, at) => {
        // Names compare as the registry finds agents: without regard to case.
        if (name.toLowerCase() === agent.name.toLowerCase())
          report(
            RULES.agentNamesItself,
            `\`${key}\` names the agent itself (\`${name}\`): ${SELF_REFERENCE[key]}; name another agent, or drop the entry`,
            at,
          );
        else if (!agentNames.has(name.toLowerCase()))
          report(RULES.unknownAgent, `\`${key}\` names agent \`${name}\`, which is not loaded`, at);
      });
    }
    each('skills', (name, at) => {
      if (!findSkill(name))
        report(RULES.unknownSkill, `\`skills\` names skill \`${name}\`, which is not loaded`, at);
    });
    // Without `skills`, the agent has what the session allows: any loaded skill may be in reach.
    const reach = agent.skills
      ? agent.skills.map(findSkill).filter((skill): skill is Skill => skill !== undefined)
      : context.skills;
    const inReach = new Set(reach);
    const mcpInReach = reach.some((skill) => skill.kind === 'mcp');
    const problem = (name: string, key: 'tools' | 'approve'): [RegistryRuleId, string] | undefined => {
      if (key === 'approve' && agent.tools && !agent.tools.includes(name))
        return [
          RULES.toolOutOfReach,
          `\`approve\` names tool \`${name}\`, which is not in the agent's \`tools\``,
        ];
      if (builtins.has(name)) return undefined;
      const owner = toolOwner.get(name);
      if (owner) {
        return inReach.has(owner)
          ? undefined
          : [
              RULES.toolOutOfReach,
              `\`${key}\` names tool \`${name}\` of skill \`${owner.name}\`, which is not in the agent's \`skills\``,
            ];
      }
      return mcpInReach
        ? undefined
        : [RULES.unknownTool, `\`${key}\` names tool \`${name}\`, which no loaded skill declares`];
    };
    for (const key of ['tools', 'approve'] as const) {
      each(key, (entry, at) => {
        // An `approve` entry is an approval pattern: the tool it names is before `(` (after `skill:`); `skill:*`
        // names no single tool.
        const name = key === 'approve' ? approvedTool(entry) : entry;
        if (name === undefined) {
          // `skill:*` pre-approves the skill's tools, but never a raw command of one.
          const raw = key === 'approve' ? rawToolsNamedOnly(entry, context.skills) : [];
          if (raw.length > 0)
            report(
              RULES.approveNeverApplies,
              `\`approve\` names \`${entry}\`, whose tool${raw.length > 1 ? 's' : ''} ${raw.map((t) => `\`${t}\``).join(', ')} run${raw.length > 1 ? '' : 's'} raw shell commands: a skill's \`*\` never pre-approves one; write a command pattern such as \`${raw[0]}(git status)\``,
              at,
            );
          return;
        }
        const why = problem(name, key);
        if (why) report(why[0], why[1], at);
        else if (key === 'approve' && rawToolsNamedOnly(entry, context.skills).includes(name))
          report(
            RULES.approveNeverApplies,
            `\`approve\` names \`${name}\`, which runs raw shell commands: a tool name never pre-approves one; write a command pattern such as \`${name}(git status)\``,
            at,
          );
      });
    }
    // Top to bottom, as a reader goes through the file.
    messages.push(
      ...found.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0)),
    );
  }
  return messages;
}

/**
 * What naming itself does at run time, as the graph runs it: `task` offers the agent itself, and each call starts
 * another copy of it on a thread of its own, until `maxSubagentDepth` refuses the next (`subagent-depth`); `handoff`
 * to itself moves the conversation nowhere.
 */
const SELF_REFERENCE = {
  subagents:
    'a task it gives itself starts another copy of it, nested again each time until the subagent depth limit refuses it',
  handoffs: 'handing the conversation to itself changes nothing',
} as const;

/** The tool an `approve` pattern names (`run_bash(git status)` → `run_bash`, `fs:read_file` → `read_file`). */
function approvedTool(entry: string): string | undefined {
  const head = entry.split('(', 1)[0] ?? entry;
  const tool = head.slice(head.indexOf(':') + 1);
  return tool === '*' || tool === '' ? undefined : tool;
}
