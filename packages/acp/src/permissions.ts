import { resolve } from 'node:path';
import type { AgentContext, PermissionOption, ToolCallContent } from '@agentclientprotocol/sdk';
import type { ApprovalDecision, ApprovalRequest, ApprovalRule } from '@birdie/graph';
import { sessionApprovalMayAnswer, sessionOffer } from '@birdie/graph/tool-approval';
import { escapeInvisible } from '@birdie/graph/visible-text';
import { askEditor } from './permission-answer.js';
import { ruleMeta, ruleNote } from './rule-note.js';
import { toolKind, toolLocations } from './tool-view.js';

export const ALLOW_ONCE = 'allow-once';
export const ALLOW_SESSION = 'allow-session';
/** Allow the raw shell command's pattern (`run_bash(touch *)`) for the session: offered instead of the whole tool. */
export const ALLOW_PATTERN = 'allow-pattern';
export const REJECT = 'reject';

/**
 * "Allow for this session" answers: tool name → the skill file (`layer:path`) the user allowed it from. A grant
 * holds only while that same file provides the tool's skill: when another file provides it now (a project skill
 * shadowing a bundled one, a reload), the user is asked again. Kept for the ACP session in this process.
 */
export class ToolGrants {
  readonly #grants = new Map<string, string>();

  grant(tool: string, identity: string): void {
    this.#grants.set(tool, identity);
  }

  allows(tool: string, identity: string | undefined): boolean {
    return identity !== undefined && this.#grants.get(tool) === identity;
  }
}

export interface AskContext {
  client: AgentContext;
  sessionId: string;
  cwd: string;
  grants: ToolGrants;
  /** The skill file a skill comes from now (see `AcpRuntime.skillIdentity`). */
  identityOf(skill: string): string | undefined;
  /** The turn's signal: a cancelled turn withdraws its questions. */
  signal: AbortSignal;
  /** Where an editor's unusable answer is said (the application's log). */
  log?: (line: string) => void;
}

/**
 * birdie's approval requests as ACP permission requests, one at a time: allow once, allow the tool for the session
 * (offered only for a skill's tool, and bound to that skill's file), or reject. For a raw shell command the session
 * choice is the command's pattern (`run_bash(touch *)`, kept by the agent as a session rule), never the whole tool:
 * one click must not let every later command run unasked. A tool allowed for the session is approved without asking
 * while its skill file is the same — except a call one of the user's ask rules asks about, which is always asked, and
 * whose question names the rule. A question the client answers `cancelled`, or that is still open when the turn is
 * cancelled (the client need not answer it then), rejects that call and the rest.
 */
export async function askPermissions(
  requests: ApprovalRequest[],
  ask: AskContext,
): Promise<Record<string, ApprovalDecision>> {
  const decisions: Record<string, ApprovalDecision> = {};
  // Command patterns allowed earlier in this batch: the agent keeps them once the batch is answered, not before.
  const patterns: ApprovalRule[] = [];
  for (const request of requests) {
    const identity = request.skill ? ask.identityOf(request.skill) : undefined;
    if (sessionApprovalMayAnswer(request.reason) && ask.grants.allows(request.tool, identity)) {
      decisions[request.id] = { type: 'approve' };
      continue;
    }
    const covering = await coveringPattern(patterns, request, ask.cwd);
    if (covering !== undefined) {
      decisions[request.id] = { type: 'approve', scope: 'session', pattern: covering };
      continue;
    }
    const offers = sessionOffers(request, identity);
    if (ask.signal.aborted) {
      decisions[request.id] = { type: 'reject', message: 'The turn was cancelled.' };
      continue;
    }
    const answer = await askEditor(
      ask.client,
      {
        sessionId: ask.sessionId,
        toolCall: {
          toolCallId: request.reason === 'model-agent' ? `model-${request.id}` : request.id,
          // Invisible characters written out: the title is what the user reads before approving. The ask rule
          // that makes the call ask is said there too (and in `_meta` for clients that read it), before the answer.
          title: escapeInvisible(
            request.rule ? `${request.description} (${ruleNote(request.rule, 'asks')})` : request.description,
          ),
          kind: toolKind(request.tool),
          status: 'pending',
          rawInput: request.args,
          locations: toolLocations(request.args, ask.cwd),
          ...diffContent(request, ask.cwd),
          ...(request.rule ? { _meta: ruleMeta(request.rule) } : {}),
        },
        options: optionsFor(offers),
      },
      ask.signal,
    );
    if (answer.kind === 'failed') {
      ask.log?.(`birdie acp: ${request.tool}: ${answer.reason}; the call was not run`);
      decisions[request.id] = { type: 'reject', message: `The call did not run: ${answer.reason}.` };
      continue;
    }
    const chosen = answer.kind === 'selected' ? answer.optionId : undefined;
    if (chosen === ALLOW_ONCE) decisions[request.id] = { type: 'approve' };
    else if (chosen === ALLOW_SESSION || chosen === ALLOW_PATTERN) {
      if (chosen === ALLOW_SESSION && offers.session && identity !== undefined) {
        ask.grants.grant(request.tool, identity);
        // Kept with the session by the agent too, bound to the skill file: it holds after the session is loaded again.
        decisions[request.id] = { type: 'approve', scope: 'session' };
      } else if (chosen === ALLOW_PATTERN && offers.pattern !== undefined) {
        // The agent keeps it as a session rule bound to the skill file; this batch's later calls it covers run too.
        patterns.push({ pattern: offers.pattern, effect: 'allow', source: { kind: 'session' } });
        decisions[request.id] = { type: 'approve', scope: 'session', pattern: offers.pattern };
      } else {
        // Not offered (an ask rule's question, a raw command's whole tool, a tool that cannot be bound): the answer
        // allows this call only.
        decisions[request.id] = { type: 'approve' };
      }
    } else if (chosen === undefined) {
      decisions[request.id] = { type: 'reject', message: 'The user cancelled the turn.' };
    } else decisions[request.id] = { type: 'reject', message: 'The user rejected this call in the editor.' };
  }
  return decisions;
}

/** The files a call would change, as ACP diffs the editor shows in its permission prompt. */
function diffContent(request: ApprovalRequest, cwd: string): { content?: ToolCallContent[] } {
  const preview = request.preview;
  if (!preview || 'error' in preview) return {};
  const content: ToolCallContent[] = preview.changes.flatMap((change) =>
    change.kind === 'file' && change.after !== undefined && change.before !== undefined
      ? [
          {
            type: 'diff' as const,
            path: resolve(cwd, change.path),
            oldText: change.before,
            newText: change.after,
          },
        ]
      : [],
  );
  return content.length > 0 ? { content } : {};
}

/** What a question offers for the session beyond once: the whole tool, or a raw shell command's pattern. */
interface SessionOffers {
  tool: string;
  session: boolean;
  pattern?: string;
}

/**
 * What the question offers for the session: graph's `sessionOffer` (never at an ask rule's question; for a raw shell
 * command only its pattern, since one click must not allow every later command), and only when the grant can be bound
 * to the skill file (`identity`).
 */
function sessionOffers(request: ApprovalRequest, identity: string | undefined): SessionOffers {
  if (identity === undefined) return { tool: request.tool, session: false };
  const { wholeTool, pattern } = sessionOffer(request);
  return { tool: request.tool, session: wholeTool, ...(pattern ? { pattern } : {}) };
}

/** The pattern allowed earlier in the batch that covers `request` (never a call an ask rule asks about). */
async function coveringPattern(
  patterns: readonly ApprovalRule[],
  request: ApprovalRequest,
  root: string,
): Promise<string | undefined> {
  if (patterns.length === 0 || !sessionApprovalMayAnswer(request.reason)) return undefined;
  const { compileRules } = await import('@birdie/graph/tools');
  const decided = compileRules(patterns).decide({
    tool: {
      name: request.tool,
      ...(request.skill ? { skill: request.skill } : {}),
      raw: request.raw === true,
    },
    args: request.args,
    root,
  });
  return decided?.effect === 'allow' ? decided.rule.pattern : undefined;
}

function optionsFor(offers: SessionOffers): PermissionOption[] {
  return [
    { optionId: ALLOW_ONCE, name: 'Allow once', kind: 'allow_once' },
    ...(offers.session
      ? [
          {
            optionId: ALLOW_SESSION,
            name: `Allow ${offers.tool} for this session`,
            kind: 'allow_always' as const,
          },
        ]
      : []),
    ...(offers.pattern !== undefined
      ? [
          {
            optionId: ALLOW_PATTERN,
            name: `Allow ${offers.pattern} for this session`,
            kind: 'allow_always' as const,
          },
        ]
      : []),
    { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
  ];
}
