import { suggestCommandPattern } from './command-pattern.js';
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

/** What an approval question may offer to allow for the rest of the session, as `sessionOffer` decides it. */
export interface SessionOffer {
  /** The call runs a raw shell command: its whole tool allowed would let every later command run unasked. */
  shell: boolean;
  /** Whether a session approval may answer this call at all (`sessionApprovalMayAnswer`: not an ask rule's question). */
  lasting: boolean;
  /**
   * Whether one answer may allow the whole tool for the session: a `lasting` call that is not a raw shell command.
   * (A front end that has the user type a confirmation, as the REPL does, may still offer a shell tool when `lasting`.)
   */
  wholeTool: boolean;
  /**
   * For a `lasting` raw shell command, the command pattern to allow (`run_bash(npm test *)`), kept as a session rule;
   * none for a line with no safe prefix, nor under the mode `always`, which no allow pattern lifts.
   */
  pattern?: string;
}

/**
 * What a question about `call` may offer for the session: the one rule every front end (REPL, editor, chat, MCP
 * client) follows, so none offers a grant that would not answer the next call, or one that would answer too much.
 */
export function sessionOffer(call: {
  tool: string;
  args: Readonly<Record<string, unknown>>;
  reason?: ApprovalReason;
  raw?: boolean;
}): SessionOffer {
  const lasting = call.reason === undefined || sessionApprovalMayAnswer(call.reason);
  const shell = call.raw === true || call.reason === 'raw-command';
  const command = call.args.command;
  const pattern =
    lasting && shell && call.reason !== 'mode-always' && typeof command === 'string'
      ? suggestCommandPattern(command, call.tool)
      : undefined;
  return { shell, lasting, wholeTool: lasting && !shell, ...(pattern ? { pattern } : {}) };
}
