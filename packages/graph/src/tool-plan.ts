import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import { HANDOFF } from './agent-tools.js';
import { callApproval } from './call-approval.js';
import { newId } from './ids.js';
import { callSignature, MAX_REPEATS, previousRepeats } from './loop-guard.js';
import { describeMiss, describeRule, type RuleDecision, type RuleSet } from './rule-set.js';
import type { DeclaredTool, ToolInvocation } from './tool.js';
import type { Toolset } from './toolset.js';
import type { AgentPolicy, AgentRegistrySnapshot, ApprovalMode, ApprovalRequest } from './types.js';

/** One call of the model's turn after planning: refused with a message for the model, or ready to run. */
export type PlannedCall =
  | {
      kind: 'refuse';
      id: string;
      name: string;
      args: Record<string, unknown>;
      message: string;
      tool?: DeclaredTool;
      /** The deny rule that refused it. */
      rule?: RuleDecision;
    }
  | {
      kind: 'run';
      id: string;
      name: string;
      invocation: ToolInvocation;
      request?: ApprovalRequest;
      /** It would have asked, but the user approved its tool for the session (from the same file). */
      granted?: boolean;
      /** The rule that let it run without asking (`allow`) or made it ask (`ask`). */
      rule?: RuleDecision;
    };

export interface PlanInput {
  ai: AIMessage;
  /** The thread's messages and where `ai` stands in them (the loop guard looks back from there). */
  messages: readonly BaseMessage[];
  aiIndex: number;
  toolset: Toolset;
  policy: AgentPolicy;
  /** The session whose policy applies (a subagent's thread: its parent session). */
  policyKey: string;
  snapshot: AgentRegistrySnapshot;
  approval: ApprovalMode;
  /** A raw command asks whatever the mode and whatever the tool declares (a server's API sessions). */
  askRawCommands?: boolean;
  /** The asking agent's path, copied onto its approval requests; absent for the default agent. */
  agentPath?: string[];
  /** Whether the session approved this tool for good (a session approval bound to the same file). */
  approvedForSession?: (tool: DeclaredTool) => boolean;
  /**
   * The approval rules in force (application, agent, loaded skills, session), consulted before the tool's declaration
   * and the mode: deny refuses, ask asks, allow runs without asking (a raw command too, when every simple command in
   * it matches); the mode `always` still asks.
   */
  rules?: RuleSet;
  /** The workspace: path arguments are matched by the real path they name in it (a symlink is followed). */
  root?: string;
  /** Tools bound because `find_tools` returned them: their approval requests say so (`addedBy`). */
  foundTools?: ReadonlySet<string>;
}

/** The skill of a loaded tool that the policy does not allow in this session, if that is why it cannot run. */
function skillOff(input: PlanInput, name: string): { skill: string; fenced: boolean } | undefined {
  const entry = input.snapshot.getTool(name);
  if (!entry || input.policy.isToolAllowed(input.policyKey, name, input.snapshot)) return undefined;
  const fenced = input.policy.withinCeiling?.(entry.skill, input.snapshot) === false;
  return { skill: entry.skill.name, fenced };
}

/**
 * Step 1 of the tools node: every call is checked again at execution — the allowed set is recomputed from the
 * policy (a tool hidden from the model is refused if the model calls it anyway), repeated identical calls are
 * stopped, and each remaining call is built once into the invocation that will run (or be shown for approval).
 */
export function planCalls(input: PlanInput): PlannedCall[] {
  const { ai, toolset } = input;
  const available = [...toolset.byName.keys()].join(', ') || '(none)';
  const plan: PlannedCall[] = [];
  let handoff: string | undefined;
  for (const bad of ai.invalid_tool_calls ?? []) {
    plan.push({
      kind: 'refuse',
      id: bad.id ?? newId('call'),
      name: bad.name ?? 'unknown',
      args: {},
      message: `Error: the arguments of this call were not valid JSON (${bad.error ?? 'parse error'}). Send a JSON object.`,
    });
  }
  for (const call of ai.tool_calls ?? []) {
    const id = call.id ?? newId('call');
    const args = (call.args ?? {}) as Record<string, unknown>;
    const tool = toolset.byName.get(call.name);
    const refuse = (message: string, known?: DeclaredTool) =>
      plan.push({ kind: 'refuse', id, name: call.name, args, message, ...(known ? { tool: known } : {}) });
    const offSkill = skillOff(input, call.name);
    if (!tool || (tool.kind === 'skill' && offSkill)) {
      // A tool whose skill is loaded but not enabled here says so: the user reads the refusal in the session and
      // the run log, and "disabled or unknown" left them guessing which skill to enable.
      // Outside the application's ceiling, enabling it is refused too: the user cannot, whatever they do.
      const why = !offSkill
        ? ' (disabled or unknown)'
        : offSkill.fenced
          ? `: it belongs to the skill "${offSkill.skill}", which the application's policy does not allow (an operator's list of skills): no one in this session can enable it`
          : `: it belongs to the skill "${offSkill.skill}", which is not enabled in this session (only the user can enable it)`;
      refuse(
        `Error: tool "${call.name}" is not available in this session${why}. Available tools: ${available}.`,
      );
      continue;
    }
    if (previousRepeats(input.messages, input.aiIndex, callSignature(call.name, args)) >= MAX_REPEATS) {
      refuse(
        `Refused: this exact call (same tool, same arguments) was already made in ${MAX_REPEATS} consecutive turns. Its result will not change; use it, or try something different.`,
        tool,
      );
      continue;
    }
    const built = tool.build(args);
    if (!built.ok) {
      refuse(built.error, tool);
      continue;
    }
    if (tool.kind === 'builtin' && tool.name === HANDOFF) {
      if (handoff !== undefined) {
        refuse(
          `Refused: this step already hands the conversation to ${handoff}; one handoff per step.`,
          tool,
        );
        continue;
      }
      handoff = String(built.invocation.args.to);
    }
    const { invocation } = built;
    const decision = callApproval({
      tool,
      invocation,
      approval: input.approval,
      ...(input.askRawCommands ? { askRawCommands: true } : {}),
      ...(input.rules ? { rules: input.rules } : {}),
      ...(input.root ? { root: input.root } : {}),
      ...(input.approvedForSession ? { approvedForSession: input.approvedForSession } : {}),
    });
    if (decision.effect === 'deny') {
      plan.push({
        kind: 'refuse',
        id,
        name: call.name,
        args,
        message: `Refused by the ${describeRule(decision.rule.rule)}: this call may not run. Do not retry it in another form.`,
        tool,
        rule: decision.rule,
      });
      continue;
    }
    const { reason, granted, miss } = decision;
    const decided = decision.rule;
    const request: ApprovalRequest | undefined = reason
      ? {
          id,
          digest: invocation.digest,
          tool: tool.name,
          ...(tool.skill ? { skill: tool.skill } : {}),
          ...(tool.raw ? { raw: true as const } : {}),
          args: { ...invocation.args },
          parameters: tool.definition.function.parameters as Record<string, unknown>,
          description: invocation.describe(reason),
          reason,
          ...(decided?.effect === 'ask'
            ? {
                rule: {
                  pattern: decided.rule.pattern,
                  effect: decided.rule.effect,
                  source: decided.rule.source,
                },
              }
            : {}),
          ...(miss ? { ruleMiss: describeMiss(miss) } : {}),
          ...(input.agentPath ? { agent: input.agentPath } : {}),
          ...(input.foundTools?.has(tool.name) ? { addedBy: 'find_tools' as const } : {}),
        }
      : undefined;
    plan.push({
      kind: 'run',
      id,
      name: call.name,
      invocation,
      ...(request ? { request } : {}),
      ...(granted ? { granted } : {}),
      ...(decided ? { rule: decided } : {}),
    });
  }
  return plan;
}
