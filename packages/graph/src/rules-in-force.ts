import type { Skill } from '@birdie/skill-parser';
import { mapAllowedTools } from './allowed-tools.js';
import { type ApprovalRule, approvalPatternProblem } from './approval-pattern.js';
import { approvalSource } from './approval-source.js';
import { compileRules, type RuleSet } from './rule-set.js';
import type { Toolset } from './toolset.js';
import type { AgentRegistrySnapshot, AgentSpec, SessionApproval } from './types.js';

const agentCache = new WeakMap<AgentSpec, ApprovalRule[]>();

/**
 * An agent file's `approve` entries as allow rules (source: the agent's file). An entry that is not a valid pattern
 * never applies (the agents check reports it as an error).
 */
export function agentRules(spec: AgentSpec): ApprovalRule[] {
  let rules = agentCache.get(spec);
  if (!rules) {
    rules = [];
    for (const pattern of spec.approve ?? [])
      if (approvalPatternProblem(pattern) === undefined)
        rules.push({ pattern, effect: 'allow', source: { kind: 'agent', name: spec.file } });
    agentCache.set(spec, rules);
  }
  return rules;
}

const skillCache = new WeakMap<Skill, ApprovalRule[]>();

/**
 * A skill's `allowed-tools`, mapped from Claude Code's syntax, as allow rules (source: the skill). Only skills in the
 * registry's snapshot get here, and a project folder's skills are there only once the folder is trusted.
 */
export function skillRules(skill: Skill): ApprovalRule[] {
  let rules = skillCache.get(skill);
  if (!rules) {
    const { patterns } = mapAllowedTools(skill.allowedTools ?? []);
    rules = patterns.map((pattern) => ({
      pattern,
      effect: 'allow' as const,
      source: { kind: 'skill' as const, name: skill.name },
    }));
    skillCache.set(skill, rules);
  }
  return rules;
}

/**
 * The session rules (`approve` decisions with a `pattern`) that still hold: each is bound to the file that declared
 * its tool when the user chose it, like a session approval of a whole tool.
 */
export function sessionRules(
  approvals: readonly SessionApproval[],
  toolset: Toolset,
  snapshot: AgentRegistrySnapshot,
): ApprovalRule[] {
  const rules: ApprovalRule[] = [];
  for (const approval of approvals) {
    if (approval.pattern === undefined) continue;
    const tool = toolset.byName.get(approval.tool);
    if (!tool || approvalSource(tool, snapshot) !== approval.source) continue;
    // A pattern saved before the grammar refused it (shell syntax in a command rule) no longer applies: its calls ask.
    if (approvalPatternProblem(approval.pattern) !== undefined) continue;
    rules.push({ pattern: approval.pattern, effect: 'allow', source: { kind: 'session' } });
  }
  return rules;
}

export interface RulesInput {
  /** The application's rules (user, project, operator), fixed for the agent (`createAgent`'s `approvalRules`). */
  base: readonly ApprovalRule[];
  agent?: AgentSpec;
  toolset: Toolset;
  /** Skills the thread loaded (`load_skill`); with `always_inject` skills, theirs are the skill rules in force. */
  loadedSkills: readonly string[];
  approvals: readonly SessionApproval[];
  snapshot: AgentRegistrySnapshot;
}

const baseSets = new WeakMap<readonly ApprovalRule[], RuleSet>();

/** Every rule in force for one step of the tools node, compiled (the base set alone is compiled once). */
export function rulesInForce(input: RulesInput): RuleSet | undefined {
  const loaded = new Set(input.loadedSkills);
  const extra: ApprovalRule[] = [
    ...(input.agent ? agentRules(input.agent) : []),
    ...input.toolset.allowed
      .filter((skill) => skill.allowedTools?.length && (skill.alwaysInject || loaded.has(skill.name)))
      .flatMap(skillRules),
    ...sessionRules(input.approvals, input.toolset, input.snapshot),
  ];
  if (extra.length === 0) {
    if (input.base.length === 0) return undefined;
    let set = baseSets.get(input.base);
    if (!set) {
      set = compileRules(input.base);
      baseSets.set(input.base, set);
    }
    return set;
  }
  return compileRules([...input.base, ...extra]);
}
