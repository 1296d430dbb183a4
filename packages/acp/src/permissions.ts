import { resolve } from 'node:path';
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionResponse,
  ToolCallContent,
} from '@agentclientprotocol/sdk';
import { methods } from '@agentclientprotocol/sdk';
import type { ApprovalDecision, ApprovalRequest } from '@birdie/graph';
import { sessionApprovalMayAnswer } from '@birdie/graph/tool-approval';
import { escapeInvisible } from '@birdie/graph/visible-text';
import { ruleMeta, ruleNote } from './rule-note.js';
import { toolKind, toolLocations } from './tool-view.js';

export const ALLOW_ONCE = 'allow-once';
export const ALLOW_SESSION = 'allow-session';
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
}

/**
 * birdie's approval requests as ACP permission requests, one at a time: allow once, allow the tool for the session
 * (offered only for a skill's tool, and bound to that skill's file), or reject. A tool allowed for the session is
 * approved without asking while its skill file is the same — except a call one of the user's ask rules asks about,
 * which is always asked, and whose question names the rule. A question the client answers `cancelled`, or that is
 * still open when the turn is cancelled (the client need not answer it then), rejects that call and the rest.
 */
export async function askPermissions(
  requests: ApprovalRequest[],
  ask: AskContext,
): Promise<Record<string, ApprovalDecision>> {
  const decisions: Record<string, ApprovalDecision> = {};
  for (const request of requests) {
    const identity = request.skill ? ask.identityOf(request.skill) : undefined;
    if (sessionApprovalMayAnswer(request.reason) && ask.grants.allows(request.tool, identity)) {
      decisions[request.id] = { type: 'approve' };
      continue;
    }
    if (ask.signal.aborted) {
      decisions[request.id] = { type: 'reject', message: 'The turn was cancelled.' };
      continue;
    }
    const answer = await ask.client
      .request(
        methods.client.session.requestPermission,
        {
          sessionId: ask.sessionId,
          toolCall: {
            toolCallId: request.reason === 'model-agent' ? `model-${request.id}` : request.id,
            // Invisible characters written out: the title is what the user reads before approving. The ask rule
            // that makes the call ask is said there too (and in `_meta` for clients that read it), before the answer.
            title: escapeInvisible(
              request.rule
                ? `${request.description} (${ruleNote(request.rule, 'asks')})`
                : request.description,
            ),
            kind: toolKind(request.tool),
            status: 'pending',
            rawInput: request.args,
            locations: toolLocations(request.args, ask.cwd),
            ...diffContent(request, ask.cwd),
            ...(request.rule ? { _meta: ruleMeta(request.rule) } : {}),
          },
          options: optionsFor(request, identity),
        },
        // A cancelled turn stops waiting at once: a client that never answers the withdrawn question (its dialog
        // dismissed, no `$/cancel_request` support) must not hold the prompt, and the session, forever.
        { cancellationSignal: ask.signal, stopWaitingOnCancel: true },
      )
      .catch((): RequestPermissionResponse => ({ outcome: { outcome: 'cancelled' } }));
    const chosen = answer.outcome.outcome === 'selected' ? answer.outcome.optionId : undefined;
    if (chosen === ALLOW_ONCE) decisions[request.id] = { type: 'approve' };
    else if (chosen === ALLOW_SESSION) {
      if (identity !== undefined && offersSession(request, identity)) {
        ask.grants.grant(request.tool, identity);
        // Kept with the session by the agent too, bound to the skill file: it holds after the session is loaded again.
        decisions[request.id] = { type: 'approve', scope: 'session' };
      } else {
        // Not offered (an ask rule's question, a tool that cannot be bound): the answer allows this call only.
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

/**
 * Whether the question offers allowing the tool for the session: only when the grant can be bound to the skill file
 * (`identity`) and could answer a later call — never for a call an ask rule asks about, which asks every time.
 */
function offersSession(request: ApprovalRequest, identity: string | undefined): boolean {
  return identity !== undefined && sessionApprovalMayAnswer(request.reason);
}

function optionsFor(request: ApprovalRequest, identity: string | undefined): PermissionOption[] {
  return [
    { optionId: ALLOW_ONCE, name: 'Allow once', kind: 'allow_once' },
    ...(offersSession(request, identity)
      ? [
          {
            optionId: ALLOW_SESSION,
            name: `Allow ${request.tool} for this session`,
            kind: 'allow_always' as const,
          },
        ]
      : []),
    { optionId: REJECT, name: 'Reject', kind: 'reject_once' },
  ];
}
