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
  checkScopes(given, pending);
  checkEdits(given, pending);
}

/**
 * Two questions are asked at every call, whatever was approved before: a raw shell command in API sessions
 * (`askRawCommands`) and a call an ask rule asks about. Approving one for the session is taken as once by the graph,
 * which a client would show its user as "approved for this chat" (the web app offers it for neither): refused.
 */
function checkScopes(decisions: Record<string, ApprovalDecision>, pending: ApprovalRequest[]): void {
  for (const request of pending) {
    const decision = decisions[request.id];
    if (decision?.type !== 'approve' || decision.scope !== 'session') continue;
    const call = `${request.id} (${request.tool})`;
    if (request.raw === true || request.reason === 'raw-command')
      throw new ApiError(
        'invalid-request',
        `${call} runs a raw shell command: in API sessions each such call is approved once ("scope": "once"); the operator's permissions.allow rules are what let commands run without asking`,
      );
    if (request.reason === 'rule')
      throw new ApiError(
        'invalid-request',
        request.rule?.effect === 'deny'
          ? `${call} is a command line too complex to check against the deny rule \`${request.rule.pattern}\`, so it asks at every call: approve it once ("scope": "once")`
          : `${call} is asked about by the ask rule \`${request.rule?.pattern ?? '?'}\`, which asks at every call: approve it once ("scope": "once")`,
      );
  }
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
