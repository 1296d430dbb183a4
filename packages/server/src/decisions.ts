import type { ApprovalDecision, ApprovalRequest } from '@birdie/graph/event-json';
import { checkToolArgs } from '@birdie/graph/tools';
import { ApiError } from './errors.js';

/**
 * Decisions (their shapes already validated by the route's schema) must answer exactly the pending calls: one
 * decision per pending call id, none for another id.
 */
export function checkDecisions(given: Record<string, ApprovalDecision>, pending: ApprovalRequest[]): void {
  const ids = pending.map((p) => p.id);
  const unknown = Object.keys(given).filter((id) => !ids.includes(id));
  if (unknown.length > 0)
    throw new ApiError(
      'invalid-request',
      `no pending approval ${unknown.map((id) => JSON.stringify(id)).join(', ')}`,
    );
  const missing = ids.filter((id) => !(id in given));
  if (missing.length > 0)
    throw new ApiError('invalid-request', `decide every pending call; missing: ${missing.join(', ')}`);
  checkEdits(given, pending);
}

/**
 * Edited arguments are checked against the tool's JSON Schema (defaults applied, as the call will be) before the
 * turn resumes, as the REPL checks them: a bad edit is refused here, with nothing resumed, rather than failing the
 * call later. A request without a schema (the model's own agent's tools) takes any object.
 */
function checkEdits(decisions: Record<string, ApprovalDecision>, pending: ApprovalRequest[]): void {
  for (const request of pending) {
    const decision = decisions[request.id];
    if (decision?.type !== 'edit' || !request.parameters) continue;
    const problem = checkToolArgs(request.parameters, decision.args);
    if (problem === undefined) continue;
    const details = problem.slice(problem.indexOf('\n') + 1);
    throw new ApiError(
      'invalid-arguments',
      `edited arguments of ${request.id} (${request.tool}) do not fit the tool's schema:\n${details}`,
    );
  }
}
