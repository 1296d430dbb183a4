import type { Skill, SkillTool } from '@birdie/skill-parser';
import { createHandoffTool, createTaskTool } from './agent-tools.js';
import { BUILTIN_TOOL_NAMES, MCP_READ_RESOURCE } from './builtin-names.js';
import { AgentError, isAgentError } from './errors.js';
import type { ToolLimits } from './limits.js';
import type { McpManager, McpServerTool } from './mcp-manager.js';
import { createReadResourceTool, type ResourceServer } from './mcp-resource-tool.js';
import { createMcpTool } from './mcp-tool.js';
import { createLoadSkillTool, createReadReferenceTool } from './progressive.js';
import { createSkillTool } from './skill-tool.js';
import type { DeclaredTool } from './tool.js';
import { ToolBinding } from './tool-binding.js';
import type { AgentPolicy, AgentRegistrySnapshot, AgentSpec } from './types.js';

export interface Toolset {
  /** Allowed skills this turn (policy for the session, on the turn's registry snapshot; ∩ the agent's `skills`). */
  allowed: Skill[];
  /** What `load_skill` offers: allowed knowledge skills with prose (a progressive agent: also its tool skills). */
  knowledge: Skill[];
  tools: DeclaredTool[];
  byName: Map<string, DeclaredTool>;
  /** One per MCP server that could not be reached this turn. */
  errors: AgentError[];
  /** The agent's skill tools stay hidden until `load_skill` loads their skill. */
  progressive: boolean;
}

/** What the tools of a set work on. */
export interface ToolsetPlace {
  /**
   * The folder the tools work in: the MCP servers' root (`roots/list`), set before any server is connected or asked
   * for its tools, so a server never starts without it. Every caller that runs the set's tools gives it (an agent's
   * turn, `birdie mcp`); one that only lists them may leave the roots as they are.
   */
  cwd?: string;
}

/** The agent a toolset is built for, and the skills its thread has loaded (what a progressive agent unlocked). */
export interface AgentView {
  spec: AgentSpec;
  loaded: readonly string[];
}

function loadable(skill: Skill, progressive: boolean): boolean {
  if (skill.body !== null && skill.body.trim() !== '' && (progressive || skill.kind === 'knowledge'))
    return true;
  return progressive && (skill.tools.length > 0 || skill.mcpServer !== undefined);
}

const NAME_LIMIT = 64;

/** Every vendor accepts `^[A-Za-z0-9_-]{1,64}$` as a function name; MCP servers may use more. */
function providerSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, NAME_LIMIT) || 'tool';
}

/**
 * Builds the tools of one turn from the policy. The set is recomputed every time (a skill disabled between turns is
 * gone on the next one); the tool objects are cached per registry object, so a turn costs lookups, not rebuilds.
 */
export class ToolsetBuilder {
  readonly #skillTools = new WeakMap<SkillTool, DeclaredTool>();
  readonly #mcpTools = new WeakMap<McpServerTool, Map<string, DeclaredTool>>();
  readonly #builtins = new Map<string, { knowledge: Skill[]; tools: DeclaredTool[] }>();
  #readResource?: { key: string; tool: DeclaredTool };
  readonly #agentTools = new Map<string, { agents: AgentSpec[]; tools: DeclaredTool[] }>();
  #rootsSetTo: string | undefined;

  constructor(
    private readonly policy: AgentPolicy,
    readonly mcp: McpManager,
    private readonly limits: ToolLimits,
    /** `switch_model`, given to every agent when the application names model tiers. */
    private readonly switchModel?: DeclaredTool,
    /** Which of a turn's tools are bound to the model (the tool budget and `find_tools`). */
    readonly binding: ToolBinding = new ToolBinding(),
  ) {}

  /**
   * Gives the MCP servers the place's folder as their root (`roots/list`). Whatever starts a server (a turn, a front
   * end's `mcpSession` or `toolsFor`) calls it first, so a server never starts before it knows its roots.
   */
  placeIn(place: ToolsetPlace): void {
    // Compared as given, so a folder the roots were set to last time is not converted and compared again each step.
    if (place.cwd !== undefined && place.cwd !== this.#rootsSetTo) {
      this.mcp.setRoots([place.cwd]);
      this.#rootsSetTo = place.cwd;
    }
  }

  /**
   * `key` is the session whose policy applies (a subagent's thread uses its parent session's). With an agent, the
   * set is narrowed to its `skills` and `tools`, a progressive agent sees the tools of loaded skills only, and its
   * `task` / `handoff` builtins come first (a skill tool of the same name cannot shadow them).
   */
  async build(
    key: string,
    snapshot: AgentRegistrySnapshot,
    agent?: AgentView,
    place: ToolsetPlace = {},
  ): Promise<Toolset> {
    this.placeIn(place);
    const spec = agent?.spec;
    const only = spec?.skills ? new Set(spec.skills) : undefined;
    const named = spec?.tools ? new Set(spec.tools) : undefined;
    const unlocked = spec?.progressive ? new Set(agent?.loaded) : undefined;
    const open = (skill: Skill) => !unlocked || unlocked.has(skill.name);
    let allowed = this.policy.allowedSkills(key, snapshot);
    if (only) allowed = allowed.filter((s) => only.has(s.name));
    const tools: DeclaredTool[] = spec ? [...this.#agentBuiltins(spec, snapshot)] : [];
    if (this.switchModel) tools.push(this.switchModel);
    for (const { skill, tool } of this.policy.allowedTools(key, snapshot)) {
      if ((only && !only.has(skill.name)) || !open(skill) || (named && !named.has(tool.name))) continue;
      // The builtins keep their names (the registry refuses such a tool when told the names; this holds without).
      if (BUILTIN_TOOL_NAMES.has(tool.name)) continue;
      let runtime = this.#skillTools.get(tool);
      if (!runtime) {
        runtime = createSkillTool(skill, tool, this.limits, { inSession: true });
        this.#skillTools.set(tool, runtime);
      }
      tools.push(runtime);
    }
    const knowledge = allowed.filter((s) => loadable(s, unlocked !== undefined));
    tools.push(...this.#builtinTools(knowledge, unlocked !== undefined));

    const errors: AgentError[] = [];
    const withServer = allowed.filter((s) => s.mcpServer !== undefined && open(s));
    if (withServer.length > 0) {
      const results = await Promise.allSettled(
        withServer.map((s) => this.mcp.tools(s.name, s.mcpServer as never)),
      );
      const taken = new Map<string, number>();
      for (const t of tools) taken.set(t.name, (taken.get(t.name) ?? 0) + 1);
      for (const r of results) {
        if (r.status === 'fulfilled')
          for (const t of r.value.tools) taken.set(t.name, (taken.get(t.name) ?? 0) + 1);
      }
      const withResources: ResourceServer[] = [];
      results.forEach((result, index) => {
        const skill = withServer[index] as Skill;
        if (result.status === 'rejected') {
          const error = result.reason;
          errors.push(
            error instanceof AgentError
              ? error
              : new AgentError('mcp-unavailable', `MCP server of ${skill.name} failed: ${String(error)}`),
          );
          return;
        }
        if (result.value.resources) withResources.push({ server: skill.name, skill: skill.name });
        for (const original of result.value.tools) {
          // Prefix only on a clash, so a lone server's tools keep the names its docs use.
          const clash = (taken.get(original.name) ?? 0) > 1;
          const exposed = providerSafe(clash ? `${result.value.server}__${original.name}` : original.name);
          if (named && !named.has(exposed)) continue;
          tools.push(this.#mcpTool(original, exposed, skill.name, result.value.toolTimeoutMs));
        }
      });
      if (withResources.length > 0 && (!named || named.has(MCP_READ_RESOURCE)))
        tools.push(this.#readResourceTool(withResources));
    }
    const byName = new Map<string, DeclaredTool>();
    for (const t of tools) if (!byName.has(t.name)) byName.set(t.name, t);
    return {
      allowed,
      knowledge,
      tools: [...byName.values()],
      byName,
      errors,
      progressive: unlocked !== undefined,
    };
  }

  /** `task` over the agent's subagents and `handoff` over its handoff targets, each only for agents that exist. */
  #agentBuiltins(spec: AgentSpec, snapshot: AgentRegistrySnapshot): DeclaredTool[] {
    const resolve = (names: readonly string[] | undefined) =>
      (names ?? []).flatMap((n) => {
        if (this.policy.isAgentAllowed?.(n) === false) return [];
        const found = snapshot.getAgent?.(n);
        return found ? [found] : [];
      });
    const subagents = resolve(spec.subagents);
    const targets = resolve(spec.handoffs);
    if (subagents.length === 0 && targets.length === 0) return [];
    const agents = [...subagents, ...targets];
    const key = `${spec.name}\0${subagents.map((a) => a.name).join(',')}\0${targets.map((a) => a.name).join(',')}`;
    const cached = this.#agentTools.get(key);
    if (cached?.agents.length === agents.length && cached.agents.every((a, i) => a === agents[i]))
      return cached.tools;
    const tools: DeclaredTool[] = [];
    if (subagents.length > 0) tools.push(createTaskTool(subagents));
    if (targets.length > 0) tools.push(createHandoffTool(targets));
    if (this.#agentTools.size > 64) this.#agentTools.clear();
    this.#agentTools.set(key, { agents, tools });
    return tools;
  }

  #builtinTools(knowledge: Skill[], unlocks: boolean): DeclaredTool[] {
    if (knowledge.length === 0) return [];
    const key = `${unlocks ? 'p' : 'k'}\n${knowledge.map((s) => `${s.file}\0${s.name}`).join('\n')}`;
    const cached = this.#builtins.get(key);
    if (cached?.knowledge.every((s, i) => s === knowledge[i])) return cached.tools;
    const tools = [createLoadSkillTool(knowledge, unlocks)];
    const withFiles = knowledge.filter((s) => s.resources.length > 0);
    if (withFiles.length > 0) tools.push(createReadReferenceTool(withFiles, this.limits.maxReferenceChars));
    if (this.#builtins.size > 32) this.#builtins.clear();
    this.#builtins.set(key, { knowledge, tools });
    return tools;
  }

  /** One `mcp_read_resource` per set of servers with resources (cached: a turn costs a lookup). */
  #readResourceTool(servers: ResourceServer[]): DeclaredTool {
    const key = servers.map((s) => s.server).join('\n');
    if (this.#readResource?.key !== key)
      this.#readResource = {
        key,
        tool: createReadResourceTool(this.mcp, servers, this.limits.maxOutputChars),
      };
    return this.#readResource.tool;
  }

  #mcpTool(original: McpServerTool, exposed: string, skill: string, timeoutMs: number): DeclaredTool {
    let byName = this.#mcpTools.get(original);
    if (!byName) {
      byName = new Map();
      this.#mcpTools.set(original, byName);
    }
    let runtime = byName.get(exposed);
    if (!runtime) {
      runtime = createMcpTool(this.mcp, original, {
        exposedName: exposed,
        skill,
        timeoutMs,
        maxOutputChars: this.limits.maxOutputChars,
        onFailure: (error) => {
          if (
            isAgentError(error, 'mcp-unavailable') ||
            /closed|not connected|EPIPE|exited/i.test(String(error))
          )
            void this.mcp.markDead(skill);
        },
      });
      byName.set(exposed, runtime);
    }
    return runtime;
  }
}
