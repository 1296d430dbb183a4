import { isApprovalRuleError } from './approval-pattern.js';
import { AgentError } from './errors.js';
import { compileRules } from './rule-set.js';
import type { ApprovalDecision, ApprovalRequest } from './types.js';

/** The payload given to LangGraph's `interrupt()`; `getState` reads it back after a restart. */
export interface ApprovalInterrupt {
  kind: 'birdie/approval';
  requests: ApprovalRequest[];
}

export function isApprovalInterrupt(value: unknown): value is ApprovalInterrupt {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as ApprovalInterrupt).kind === 'birdie/approval' &&
    Array.isArray((value as ApprovalInterrupt).requests)
  );
}

/** A decision together with the digest of the call the user was shown: it answers that call and no other. */
export type BoundDecision = ApprovalDecision & { digest: string };
export type BoundDecisions = Record<string, BoundDecision>;

/**
 * Binds each decision to the request it answers (same id), taking the digest from the request the user saw, not
 * from anything the caller sends: a call whose arguments differ from what was shown matches no decision.
 */
export function bindDecisions(
  pending: readonly ApprovalRequest[],
  decisions: Record<string, ApprovalDecision>,
): BoundDecisions {
  const bound: BoundDecisions = {};
  for (const request of pending) {
    if (!Object.hasOwn(decisions, request.id)) continue;
    bound[request.id] = { ...(decisions[request.id] as ApprovalDecision), digest: request.digest };
  }
  return bound;
}

/** The decision for a call, only when both its id and its digest match. */
export function decisionFor(
  decisions: BoundDecisions,
  call: { id: string; digest: string },
): ApprovalDecision | undefined {
  if (!Object.hasOwn(decisions, call.id)) return undefined;
  const decision = decisions[call.id] as BoundDecision;
  return decision.digest === call.digest ? decision : undefined;
}

/**
 * Checks the decisions given for the pending requests. `root` is the turn's workspace: a session pattern's path
 * arguments are matched by their real path in it, as the rule will be once in force.
 */
export function validateDecisions(
  pending: ApprovalRequest[],
  decisions: Record<string, ApprovalDecision>,
  root?: string,
): void {
  if (decisions === null || typeof decisions !== 'object' || Array.isArray(decisions))
    throw new AgentError('unknown-decision', 'Decisions must be an object keyed by tool call id.');
  const missing = pending.filter((r) => !Object.hasOwn(decisions, r.id));
  if (missing.length > 0) {
    throw new AgentError(
      'missing-decision',
      `No decision for: ${missing.map((r) => `${r.tool} (${r.id})`).join(', ')}.`,
    );
  }
  const ids = new Set(pending.map((r) => r.id));
  for (const [id, decision] of Object.entries(decisions)) {
    if (!ids.has(id))
      throw new AgentError('unknown-decision', `No pending call has the id ${id}; nothing was decided.`);
    const type = (decision as { type?: unknown } | null)?.type;
    if (type !== 'approve' && type !== 'edit' && type !== 'reject') {
      throw new AgentError('unknown-decision', `Decision for ${id} must be approve, edit or reject.`);
    }
    const scope = (decision as { scope?: unknown }).scope;
    if (type === 'approve' && scope !== undefined && scope !== 'once' && scope !== 'session')
      throw new AgentError('unknown-decision', `The approve decision for ${id} has scope once or session.`);
    if (type === 'approve' && (decision as { pattern?: unknown }).pattern !== undefined) {
      const request = pending.find((r) => r.id === id) as ApprovalRequest;
      const problem = sessionPatternProblem(
        request,
        scope,
        (decision as { pattern?: unknown }).pattern,
        root,
      );
      if (problem) throw new AgentError('unknown-decision', `The approve decision for ${id}: ${problem}`);
    }
    if (
      type === 'edit' &&
      (typeof (decision as { args?: unknown }).args !== 'object' ||
        (decision as { args?: unknown }).args === null)
    ) {
      throw new AgentError('unknown-decision', `The edit decision for ${id} needs an args object.`);
    }
  }
}

/**
 * What is wrong with a session rule an `approve` decision carries: it must come with `scope: 'session'`, parse, name
 * the request's tool, and cover the call it answers (so the user's choice is at least what they were shown).
 */
function sessionPatternProblem(
  request: ApprovalRequest,
  scope: unknown,
  pattern: unknown,
  root: string | undefined,
): string | undefined {
  if (scope !== 'session') return 'a pattern needs scope session';
  if (typeof pattern !== 'string') return 'the pattern must be text';
  try {
    const set = compileRules([{ pattern, effect: 'allow', source: { kind: 'session' } }]);
    const tool = {
      name: request.tool,
      ...(request.skill ? { skill: request.skill } : {}),
      raw: request.raw === true,
    };
    const decided = set.decide({ tool, args: request.args, ...(root !== undefined ? { root } : {}) });
    if (decided?.effect !== 'allow')
      return `the pattern ${pattern} does not cover this call of ${request.tool}`;
  } catch (error) {
    if (isApprovalRuleError(error)) return error.message;
    throw error;
  }
  return undefined;
}
