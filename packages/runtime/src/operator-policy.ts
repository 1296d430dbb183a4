import { resolveEntrypoint } from '@birdie/entrypoints';
import type { ApprovalMode, ApprovalRule } from '@birdie/graph';
import { skillToolApproval } from '@birdie/graph/tool-approval';
import type { PolicyCeiling, RegistrySnapshot } from '@birdie/registry';
import type { SkillInfo } from '@birdie/server';
import type { Skill, SkillTool } from '@birdie/skill-parser';
import picomatch from 'picomatch';
import type { Settings } from './settings.js';

/**
 * What a skill's tools would do with the server's rights that only the operator may accept, by naming the skill:
 * run a raw command (a `bash:` template that is only `{command}`), run `node:` code from a folder other than the
 * bundled one (the CLI's own filesystem and todo tools stay available), or declare an MCP server. Under serve such
 * code runs in the sandbox, like shell tools, but it is still a program of someone else's choosing running on the
 * operator's machine. An MCP server is one process (or one connection) for the whole server, outside the sandbox and
 * any user's workspace, so what one user does through it another can see: only the operator can accept that.
 */
type NamedOnly = 'raw-command' | 'in-process-code' | 'shared-mcp-server';

/** The operator's policy over API sessions, from the server's settings (`serve.skills`, `serve.agents`, `skills.disable`). */
export interface OperatorPolicy {
  /** For the runtime's `SkillPolicy`: no session grant, default or agent widens it, on any turn or path. */
  ceiling: PolicyCeiling;
  /** Why API sessions may not use the skill (a sentence naming the setting to change), or undefined. */
  skillRefusal(skill: Skill, snapshot: RegistrySnapshot): string | undefined;
  /** Why API sessions may not use the agent, or undefined. */
  agentRefusal(name: string): string | undefined;
  /** Every loaded skill API sessions may enable, under the server's approval mode. */
  listing(snapshot: RegistrySnapshot, approval: ApprovalMode): SkillInfo[];
  /** The operator's approval rules (the server's `permissions` settings), for every API session. */
  rules: ApprovalRule[];
}

const fold = (name: string) => name.toLowerCase();

/** Names match exactly (ignoring case, as skill names are unique that way); other entries are glob patterns. */
function allowList(entries: readonly string[]) {
  const exact = new Set(entries.map(fold));
  const patterns = entries.filter((e) => picomatch.scan(e).isGlob);
  const matches = patterns.length > 0 ? picomatch(patterns, { nocase: true }) : () => false;
  return { named: (name: string) => exact.has(fold(name)), matched: (name: string) => matches(name) };
}

const rawOf = new WeakMap<SkillTool, boolean>();

/** Whether the tool runs a raw command, decided by the entrypoint itself (as the agent decides it). */
function isRaw(skill: Skill, tool: SkillTool): boolean {
  let raw = rawOf.get(tool);
  if (raw === undefined) {
    try {
      raw = resolveEntrypoint(tool.entrypoint, {
        skillDir: skill.dir,
        schema: tool.schema,
        settings: tool,
      }).raw;
    } catch {
      raw = false; // an entrypoint that does not resolve runs nothing: every call fails
    }
    rawOf.set(tool, raw);
  }
  return raw;
}

const runsNode = (tool: SkillTool) => [tool.entrypoint, tool.preview].some((e) => e?.startsWith('node:'));

/** What the skill's tools would do that only the operator may accept by naming it, if anything. */
function namedOnly(skill: Skill, snapshot: RegistrySnapshot): NamedOnly | undefined {
  if (skill.tools.some((tool) => isRaw(skill, tool))) return 'raw-command';
  if (skill.mcpServer !== undefined) return 'shared-mcp-server';
  if (snapshot.layerOf(skill.name)?.layer !== 'bundled' && skill.tools.some(runsNode))
    return 'in-process-code';
  return undefined;
}

const NAMED_ONLY_WHY: Record<NamedOnly, string> = {
  'raw-command': 'its tools run raw shell commands',
  'in-process-code': 'its node: tools run third-party code on the server (in the sandbox)',
  'shared-mcp-server':
    'it declares an MCP server, which runs once for every user of this server, outside the sandbox and their workspaces',
};

export function operatorPolicy(
  settings: Pick<Settings, 'skills' | 'serve'> & Partial<Pick<Settings, 'permissionRules'>>,
): OperatorPolicy {
  const disabled = new Set(settings.skills.disable.map(fold));
  const skills = allowList(settings.serve.skills);
  const agents = allowList(settings.serve.agents);

  function skillRefusal(skill: Skill, snapshot: RegistrySnapshot): string | undefined {
    if (disabled.has(fold(skill.name)))
      return `skill "${skill.name}" is disabled on this server (the operator's skills.disable setting)`;
    const only = namedOnly(skill, snapshot);
    if (only && !skills.named(skill.name))
      return `skill "${skill.name}" is not allowed on this server: ${NAMED_ONLY_WHY[only]}, so the operator must name it in the serve.skills setting`;
    if (!only && !skills.named(skill.name) && !skills.matched(skill.name))
      return `skill "${skill.name}" is not allowed on this server (the operator's serve.skills setting)`;
    return undefined;
  }

  function agentRefusal(name: string): string | undefined {
    if (agents.named(name) || agents.matched(name)) return undefined;
    return `agent "${name}" is not allowed on this server (the operator's serve.agents setting)`;
  }

  return {
    ceiling: {
      skill: (skill, snapshot) => skillRefusal(skill, snapshot) === undefined,
      agent: (name) => agentRefusal(name) === undefined,
    },
    skillRefusal,
    agentRefusal,
    // The operator's own rules; a request can neither add nor drop one (nothing in the API carries rules). Their
    // source is named without the config file: that is a path on the server, and token holders read the source in
    // `tool-rule` events, approval requests and the refusal the model is given.
    rules: (settings.permissionRules ?? []).map(({ pattern, effect }) => ({
      pattern,
      effect,
      source: { kind: 'operator' },
    })),
    listing: (snapshot, approval) =>
      snapshot.skills
        .filter((skill) => skillRefusal(skill, snapshot) === undefined)
        .map((skill) => ({
          name: skill.name,
          description: skill.description,
          enabledByDefault: skill.enabledByDefault,
          mcpServer: skill.mcpServer !== undefined,
          tools: skill.tools.map((tool) => {
            const raw = isRaw(skill, tool);
            // The rule the agent builds the tool with (a builtin that writes, a command that runs a value as code).
            const asks = raw || skillToolApproval(skill, tool)(approval) !== null;
            return {
              name: tool.name,
              description: tool.description,
              raw,
              approval: asks ? ('always' as const) : ('never' as const),
            };
          }),
        })),
  };
}
