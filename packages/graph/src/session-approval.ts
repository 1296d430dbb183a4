import type { ApprovalReason } from './tool.js';

/**
 * Whether a session approval — a tool or a command pattern the user allowed for the rest of the session — may answer
 * a call that asks for `reason` without asking again: for any reason but an ask rule. The user wrote that rule to be
 * asked every time (precedence deny > ask > allow, whichever source), so no grant lifts it: not the agent's stored
 * approvals, not an earlier answer of the same batch in a front end (REPL, editor).
 */
export function sessionApprovalMayAnswer(reason: ApprovalReason): boolean {
  return reason !== 'rule';
}

/**
 * Whether an approval of the whole tool for the session may answer a call of `tool` asking for `reason`: as
 * `sessionApprovalMayAnswer`, and never a raw command in a turn that asks raw commands every time (a server's API
 * session: only a command pattern, an allow rule, lifts those, else one click would make the tool a shell).
 */
export function wholeToolGrantMayAnswer(
  reason: ApprovalReason,
  tool: { raw?: true },
  askRawCommands: boolean | undefined,
): boolean {
  return sessionApprovalMayAnswer(reason) && !(askRawCommands === true && tool.raw === true);
}
