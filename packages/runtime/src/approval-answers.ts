import type { ApprovalDecision, ApprovalRequest } from '@birdie/graph';
import { checkToolArgs } from '@birdie/graph/tools';
import { ApprovalBatch } from './approval-batch.js';

/**
 * What a person answered about one approval request, whichever front end asked: approve once; a command pattern or
 * the whole tool for the rest of the session; the call with edited arguments (none: the edit was given up, which
 * rejects the call); a rejection, with a message for the model; or the whole turn cancelled.
 */
export type ApprovalAnswer =
  | { kind: 'once' }
  | { kind: 'pattern'; pattern: string }
  | { kind: 'session' }
  | { kind: 'edit'; args?: Record<string, unknown> }
  | { kind: 'reject'; message?: string }
  | { kind: 'cancel' };

/**
 * What a question may offer for a call: whether it runs a raw shell command, and the command pattern to allow for the
 * session (graph's `sessionOffer`: none at an ask rule's question or under the mode `always`, where no pattern answers).
 */
export async function approvalOffer(
  request: ApprovalRequest,
): Promise<{ shell: boolean; prefixPattern?: string }> {
  // The shell parser loads with the first question, not with the REPL.
  const { shell, pattern } = (await import('@birdie/graph/tool-approval')).sessionOffer(request);
  return { shell, ...(pattern ? { prefixPattern: pattern } : {}) };
}

/**
 * Asks about each request in turn and returns the decisions. A call that a session approval given earlier in the
 * batch covers is not asked about (`onCovered` says which tool or pattern covered it). A cancel rejects every call
 * not decided yet and stops asking; `cancelled` tells the caller to cancel the turn. `root` is the turn's workspace:
 * a session pattern covers a later call's path by the real path it names there, as the agent's rule will.
 */
export async function decideApprovals(
  requests: readonly ApprovalRequest[],
  ask: (request: ApprovalRequest) => Promise<ApprovalAnswer>,
  onCovered: (by: string) => void = () => {},
  root?: string,
): Promise<{ decisions: Record<string, ApprovalDecision>; cancelled: boolean }> {
  const decisions: Record<string, ApprovalDecision> = {};
  const batch = new ApprovalBatch(root);
  for (const request of requests) {
    const covered = await batch.covered(request);
    if (covered) {
      decisions[request.id] = covered.decision;
      onCovered(covered.by);
      continue;
    }
    const answer = await ask(request);
    if (answer.kind === 'cancel') {
      for (const r of requests)
        decisions[r.id] ??= { type: 'reject', message: 'The user cancelled the turn.' };
      return { decisions, cancelled: true };
    }
    decisions[request.id] = decisionOf(answer, request, batch);
  }
  return { decisions, cancelled: false };
}

function decisionOf(
  answer: Exclude<ApprovalAnswer, { kind: 'cancel' }>,
  request: ApprovalRequest,
  batch: ApprovalBatch,
): ApprovalDecision {
  switch (answer.kind) {
    case 'once':
      return { type: 'approve' };
    case 'pattern':
      return batch.allowPattern(answer.pattern);
    case 'session':
      return batch.allowTool(request.tool);
    case 'edit':
      return answer.args
        ? { type: 'edit', args: answer.args }
        : { type: 'reject', message: 'The user cancelled the edit.' };
    case 'reject':
      return { type: 'reject', ...(answer.message ? { message: answer.message } : {}) };
  }
}

/**
 * Why text typed as a call's new arguments cannot be used: not JSON, not a JSON object, or not valid for the
 * tool's own schema (as the call will be checked, so a bad edit is fixed where it is typed). Undefined when it fits.
 */
export function editedArgsProblem(request: ApprovalRequest, text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `not JSON: ${(error as Error).message}`;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'must be a JSON object';
  const problem = request.parameters ? checkToolArgs(request.parameters, parsed) : undefined;
  return problem?.replace('Invalid arguments, fix them and call again:', 'Not valid for the tool:');
}
