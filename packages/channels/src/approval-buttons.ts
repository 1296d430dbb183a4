import { createHash } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest } from '@birdie/graph';
import { sessionOffer } from '@birdie/graph/tool-approval';
import { escapeInvisible } from '@birdie/graph/visible-text';
import type { Button } from './chat.js';

/**
 * What each button decides: `s` the whole tool for the session, `p` a raw shell command's pattern for the session
 * (its text and decision name the pattern, re-derived from the pending call at the press: the data has no room for it).
 */
const ACTIONS = {
  a: { text: 'Approve', decision: { type: 'approve', scope: 'once' } },
  s: { text: 'For this session', decision: { type: 'approve', scope: 'session' } },
  p: { text: 'For this session', decision: { type: 'approve', scope: 'session' } },
  r: { text: 'Reject', decision: { type: 'reject', message: 'The user rejected the call in the chat.' } },
} as const satisfies Record<string, { text: string; decision: ApprovalDecision }>;

type Action = keyof typeof ACTIONS;

/** The longest button text (Slack's limit; Telegram shows it too): a pattern button whose text is longer is not offered. */
const BUTTON_TEXT_MAX = 75;

/** A button's text and decision for `request`: the pattern's, for `p`. */
function actionFor(action: Action, request: ApprovalRequest): { text: string; decision: ApprovalDecision } {
  const pattern = action === 'p' ? offeredPattern(request) : undefined;
  if (pattern === undefined) return { text: ACTIONS[action].text, decision: { ...ACTIONS[action].decision } };
  return { text: patternText(pattern), decision: { type: 'approve', scope: 'session', pattern } };
}

const patternText = (pattern: string) => `For this session: ${pattern}`;

/**
 * The command pattern a raw shell command's question offers for the session (`run_bash(touch *)`, graph's
 * `sessionOffer`), kept as a session rule: never the whole tool, which would let every later command run from one
 * press. None where `sessionOffer` offers none, or when the button could not show it whole.
 */
function offeredPattern(request: ApprovalRequest): string | undefined {
  const { pattern } = sessionOffer(request);
  return pattern !== undefined && patternText(pattern).length <= BUTTON_TEXT_MAX ? pattern : undefined;
}

/**
 * A button's data names one call: a hash of its id and its digest (Telegram keeps 64 bytes of data per button, too
 * few for both). A press matches a pending request only when both are the same, so a button of a call already
 * decided, or of a call whose arguments changed, matches nothing.
 */
function callTag(request: Pick<ApprovalRequest, 'id' | 'digest'>): string {
  return createHash('sha256').update(`${request.id}\n${request.digest}`).digest('base64url').slice(0, 32);
}

/**
 * The buttons of one call; `owner` (the platform user id whose group session asked) is added to their data, so a
 * press finds that user's session among the group's (Telegram's 64 bytes hold it: 37 + 1 + at most 24).
 */
export function approvalButtons(request: ApprovalRequest, owner?: string): Button[][] {
  const tag = callTag(request);
  const suffix = owner !== undefined && OWNER.test(owner) ? `:${owner}` : '';
  return [
    offered(request).map((a) => ({
      text: actionFor(a, request).text,
      data: `ap:${a}:${tag}${suffix}`,
    })),
  ];
}

const OWNER = /^[A-Za-z0-9-]{1,24}$/;

export function isApprovalData(data: string): boolean {
  return /^ap:[asrp]:[A-Za-z0-9_-]{32}(?::[A-Za-z0-9-]{1,24})?$/.test(data);
}

/** The platform user id a button names as its session's owner (group sessions), if any. */
export function approvalOwner(data: string): string | undefined {
  return isApprovalData(data) ? data.split(':')[3] : undefined;
}

/** The pending request a press is for and what it decides; undefined when it names no pending call (stale). */
export function pressedDecision(
  data: string,
  pending: readonly ApprovalRequest[],
): { request: ApprovalRequest; decision: ApprovalDecision; label: string } | undefined {
  if (!isApprovalData(data)) return undefined;
  const [, action, tag] = data.split(':') as [string, Action, string];
  const request = pending.find((r) => callTag(r) === tag);
  // A press of a button the question does not offer (approving a call not shown whole) decides nothing.
  if (!request || !offered(request).includes(action)) return undefined;
  const { decision, text } = actionFor(action, request);
  return { request, decision, label: text };
}

/**
 * The approval question as a chat message (Markdown). Everything in it that comes from the model (the arguments, and
 * the description, which quotes them) is shown as text: a fence longer than any backtick run in the arguments, and
 * every Markdown character of the description escaped, so an argument cannot render as Markdown above the buttons.
 */
export function approvalText(request: ApprovalRequest): string {
  // Invisible format characters (a U+202E reorders what follows it) are written out, as every approval shows them.
  const { args, description } = shownParts(request);
  const whole = shownWhole(request);
  const shown = whole ? args : `${args.slice(0, CLIPPED_ARGS)}…`;
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(shown) + 1));
  const skill = request.skill ? ` (${escapeMarkdown(escapeInvisible(request.skill))})` : '';
  const said = whole ? description : `${description.slice(0, CLIPPED_DESCRIPTION)}…`;
  const note = whole
    ? ''
    : `\n${escapeMarkdown(`This call is too long to show whole here (${args.length + description.length} characters), so it cannot be approved from the chat: reject it, or approve it where the whole call is shown (the REPL, the web app).`)}`;
  return `**Approval needed**: ${codeSpan(escapeInvisible(request.tool))}${skill}\n${escapeMarkdown(said)}\n${fence}json\n${shown}\n${fence}${note}`;
}

/**
 * The most of a call's description and arguments one question shows (chat platforms cap a message: Telegram at 4096
 * characters). A call whose text is longer is shown cut, and then only rejected from the chat: a user approves only
 * what they were shown, whole.
 */
const SHOWN_MAX = 3000;
const CLIPPED_ARGS = 1500;
const CLIPPED_DESCRIPTION = 300;

function shownParts(request: ApprovalRequest): { args: string; description: string } {
  return {
    args: escapeInvisible(JSON.stringify(request.args, null, 2)),
    description: escapeInvisible(request.description),
  };
}

function shownWhole(request: ApprovalRequest): boolean {
  const { args, description } = shownParts(request);
  return args.length + description.length <= SHOWN_MAX;
}

/**
 * The buttons a question offers: for a call shown whole, Approve, a session choice and Reject, else only Reject. The
 * session choice: none for a call an ask rule asks about (asked every time: no session approval answers it); for a
 * raw shell command its pattern, if one is offered, never the whole tool; else the whole tool.
 */
function offered(request: ApprovalRequest): Action[] {
  if (!shownWhole(request)) return ['r'];
  if (sessionOffer(request).wholeTool) return ['a', 's', 'r'];
  return offeredPattern(request) !== undefined ? ['a', 'p', 'r'] : ['a', 'r'];
}

function longestBacktickRun(text: string): number {
  return Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
}

/** Inline code for any text: delimited by a backtick run longer than any inside it (CommonMark). */
function codeSpan(text: string): string {
  const ticks = '`'.repeat(longestBacktickRun(text) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** Text shown as it is: every ASCII punctuation character backslash-escaped (CommonMark allows all of them). */
function escapeMarkdown(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, '\\$&');
}
