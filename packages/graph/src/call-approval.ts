import type { RuleDecision, RuleMiss, RuleSet } from './rule-set.js';
import { wholeToolGrantMayAnswer } from './session-approval.js';
import type { ApprovalReason, DeclaredTool, ToolInvocation } from './tool.js';
import type { ApprovalMode } from './types.js';

export interface CallApprovalInput {
  tool: DeclaredTool;
  invocation: ToolInvocation;
  approval: ApprovalMode;
  /** A raw command asks whatever the mode and whatever the tool declares (a server's API sessions). */
  askRawCommands?: boolean;
  /** The approval rules in force: deny refuses, ask asks, allow runs without asking (never over the mode `always`). */
  rules?: RuleSet;
  /** The workspace: path arguments are matched by the real path they name in it (a symlink is followed). */
  root?: string;
  /** Whether the session approved this tool for good (a session approval bound to the same file). */
  approvedForSession?: (tool: DeclaredTool) => boolean;
}

/** What the rules, the mode and the tool's declaration decide about one built call. */
export type CallApproval =
  | { effect: 'deny'; rule: RuleDecision }
  | {
      effect: 'run';
      /** Why the call must be approved first, or null: it runs without asking. */
      reason: ApprovalReason | null;
      /** It would have asked, but the session approved its tool. */
      granted: boolean;
      /** The rule that decided, when one did. */
      rule?: RuleDecision;
      /** Why the tool's allow rules did not allow the call (only when it asks and no ask rule made it). */
      miss?: RuleMiss;
    };

/**
 * The approval decision of one call, the same for the agent's tools node and any other caller (`birdie mcp`):
 * deny rules refuse; an ask rule asks whatever the mode; an allow rule lifts what the tool declares (a raw command
 * included), never the user's mode `always`; otherwise the mode and the tool's declaration decide.
 */
export function callApproval(input: CallApprovalInput): CallApproval {
  const { tool, invocation } = input;
  const ruleCall = { tool, args: invocation.args, ...(input.root ? { root: input.root } : {}) };
  const decided = input.rules?.decide(ruleCall);
  if (decided?.effect === 'deny') return { effect: 'deny', rule: decided };
  const declared = input.askRawCommands && tool.raw ? 'raw-command' : invocation.approval(input.approval);
  const asked =
    decided?.effect === 'ask'
      ? 'rule'
      : decided?.effect === 'allow' && declared !== 'mode-always'
        ? null
        : declared;
  const granted =
    asked !== null &&
    wholeToolGrantMayAnswer(asked, tool, input.askRawCommands) &&
    input.approvedForSession?.(tool) === true;
  const reason = granted ? null : asked;
  const miss = reason && decided?.effect !== 'ask' ? input.rules?.miss(ruleCall) : undefined;
  return {
    effect: 'run',
    reason,
    granted,
    ...(decided && (decided.effect === 'ask' || reason === null) ? { rule: decided } : {}),
    ...(miss ? { miss } : {}),
  };
}
