import type { Skill, SkillTool } from '@birdie/skill-parser';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { AgentError } from './errors.js';
import type { ToolLimits } from './limits.js';
import type { McpManager } from './mcp-manager.js';
import { createMcpTool } from './mcp-tool.js';
import { createLoadSkillTool, createReadReferenceTool, LOAD_SKILL, READ_REFERENCE } from './progressive.js';
import { createSkillTool } from './skill-tool.js';
import type { DeclaredTool } from './tool.js';
import type { AgentPolicy, AgentRegistrySnapshot } from './types.js';

export interface Toolset {
  /** Allowed skills this turn (policy for the thread, on the turn's registry snapshot). */
  allowed: Skill[];
  /** Allowed knowledge skills with prose (what `load_skill` offers). */
  knowledge: Skill[];
  tools: DeclaredTool[];
  byName: Map<string, DeclaredTool>;
  /** One per MCP server that could not be reached this turn. */
  errors: AgentError[];
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
  readonly #mcpTools = new WeakMap<StructuredToolInterface, Map<string, DeclaredTool>>();
  readonly #builtins = new Map<string, { knowledge: Skill[]; tools: DeclaredTool[] }>();

  constructor(
    private readonly policy: AgentPolicy,
    private readonly mcp: McpManager,
    private readonly limits: ToolLimits,
  ) {}

  async build(threadId: string, snapshot: AgentRegistrySnapshot): Promise<Toolset> {
    const allowed = this.policy.allowedSkills(threadId, snapshot);
    const tools: DeclaredTool[] = [];
    for (const { skill, tool } of this.policy.allowedTools(threadId, snapshot)) {
      let runtime = this.#skillTools.get(tool);
      if (!runtime) {
        runtime = createSkillTool(skill, tool, this.limits);
        this.#skillTools.set(tool, runtime);
      }
      tools.push(runtime);
    }
    const knowledge = allowed.filter(
      (s) => s.kind === 'knowledge' && s.body !== null && s.body.trim() !== '',
    );
    tools.push(...this.#builtinTools(knowledge));

    const errors: AgentError[] = [];
    const withServer = allowed.filter((s) => s.mcpServer !== undefined);
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
        for (const original of result.value.tools) {
          // Prefix only on a clash, so a lone server's tools keep the names its docs use.
          const clash = (taken.get(original.name) ?? 0) > 1;
          const exposed = providerSafe(clash ? `${result.value.server}__${original.name}` : original.name);
          tools.push(this.#mcpTool(original, exposed, skill.name, result.value.toolTimeoutMs));
        }
      });
    }
    const byName = new Map<string, DeclaredTool>();
    for (const t of tools) if (!byName.has(t.name)) byName.set(t.name, t);
    return { allowed, knowledge, tools: [...byName.values()], byName, errors };
  }

  #builtinTools(knowledge: Skill[]): DeclaredTool[] {
    if (knowledge.length === 0) return [];
    const key = knowledge.map((s) => `${s.file}\0${s.name}`).join('\n');
    const cached = this.#builtins.get(key);
    if (cached?.knowledge.every((s, i) => s === knowledge[i])) return cached.tools;
    const tools = [createLoadSkillTool(knowledge)];
    const withFiles = knowledge.filter((s) => s.resources.length > 0);
    if (withFiles.length > 0) tools.push(createReadReferenceTool(withFiles, this.limits.maxReferenceChars));
    if (this.#builtins.size > 32) this.#builtins.clear();
    this.#builtins.set(key, { knowledge, tools });
    return tools;
  }

  #mcpTool(
    original: StructuredToolInterface,
    exposed: string,
    skill: string,
    timeoutMs: number,
  ): DeclaredTool {
    let byName = this.#mcpTools.get(original);
    if (!byName) {
      byName = new Map();
      this.#mcpTools.set(original, byName);
    }
    let runtime = byName.get(exposed);
    if (!runtime) {
      runtime = createMcpTool(original, {
        exposedName: exposed,
        skill,
        timeoutMs,
        maxOutputChars: this.limits.maxOutputChars,
        onFailure: (error) => {
          if (/closed|not connected|EPIPE|exited/i.test(String(error))) void this.mcp.markDead(skill);
        },
      });
      byName.set(exposed, runtime);
    }
    return runtime;
  }
}

export const BUILTIN_TOOL_NAMES = [LOAD_SKILL, READ_REFERENCE] as const;
