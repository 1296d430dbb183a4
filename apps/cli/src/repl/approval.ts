import type { ApprovalDecision, ApprovalRequest } from '@birdie/graph';
import { sessionApprovalMayAnswer } from '@birdie/graph/tool-approval';
import {
  type ApprovalAnswer,
  approvalOffer,
  decideApprovals,
  editedArgsProblem,
} from '@birdie/runtime/approval-answers';
import type { Io } from '../io.js';
import { sessionApprovedLine } from '@birdie/terminal/events';
import type { Style } from '@birdie/terminal/style';
import { visible } from '@birdie/terminal/terminal-text';
import type { ApprovalBox, ToneLine } from '@birdie/terminal/approval-box';
import { type ApprovalAnswer as ApprovalChoiceAnswer, askApprovalChoice } from './approval-choice.js';

/**
 * What the question shows: the call's description, then the diff of the files it changes, or its arguments; first,
 * for a tool the model added itself with `find_tools`, a line that says so.
 */
export async function approvalBox(request: ApprovalRequest): Promise<ApprovalBox> {
  const text = (value: string): ToneLine[] => value.split('\n').map((line) => ({ text: visible(line) }));
  // The diff library loads with the first question that shows a change, not with the REPL.
  const details = request.preview
    ? (await import('@birdie/terminal/change-view')).changeLines(request.preview)
    : text(JSON.stringify(request.args, null, 2));
  return {
    title: `${visible(request.tool)}${request.skill ? ` (${visible(request.skill)})` : ''} needs approval`,
    lines: [
      ...(request.addedBy === 'find_tools'
        ? [
            {
              text: 'Added by find_tools: the model searched for this tool; it was not among those it was given.',
            },
          ]
        : []),
      ...text(request.description),
      { text: '' },
      ...details,
    ],
  };
}

/**
 * The question for one request, asked again until it has an answer: approving every command of a shell tool for the
 * session needs a separate confirmation (typing the tool's name); anything else goes back to the question. Editing
 * and a rejection's message are asked for after the choice.
 */
async function askOne(
  io: Io,
  style: Style,
  request: ApprovalRequest,
  prompts: typeof import('@clack/prompts'),
): Promise<ApprovalAnswer> {
  const opts = { input: io.stdin, output: io.stdout };
  // A call an ask rule asks about is asked every time: nothing for the session is offered (no grant answers it).
  const offer = { ...(await approvalOffer(request)), lasting: sessionApprovalMayAnswer(request.reason) };
  let answer: ApprovalChoiceAnswer;
  for (;;) {
    answer = await askApprovalChoice(io, style, request.tool, await approvalBox(request), offer);
    if (answer.choice !== 'session' || !offer.shell) break;
    const confirmed = await prompts.text({
      ...opts,
      message: `Every command ${request.tool} is given will run without asking, for the rest of this session. Type ${request.tool} to confirm (anything else goes back)`,
      defaultValue: '',
    });
    if (!prompts.isCancel(confirmed) && confirmed.trim() === request.tool) break;
  }
  switch (answer.choice) {
    case 'cancel':
      return { kind: 'cancel' };
    case 'escape':
      // Esc turns this one call down and the turn goes on (the other calls are still asked about).
      return { kind: 'reject' };
    case 'once':
      return { kind: 'once' };
    case 'prefix':
      return offer.prefixPattern ? { kind: 'pattern', pattern: offer.prefixPattern } : { kind: 'reject' };
    case 'session':
      return { kind: 'session' };
    case 'edit': {
      const edited = await prompts.text({
        ...opts,
        message: 'Arguments (JSON object)',
        initialValue: JSON.stringify(request.args),
        validate: (value) => editedArgsProblem(request, value ?? ''),
      });
      return prompts.isCancel(edited)
        ? { kind: 'edit' }
        : { kind: 'edit', args: JSON.parse(edited) as Record<string, unknown> };
    }
  }
  // Text typed at the question and sent with Enter: the rejection, with that text for the model.
  if (answer.message !== undefined) return { kind: 'reject', message: answer.message };
  // What was typed right after `n` starts the message, so it is neither lost nor taken as keys.
  const message = await prompts.text({
    ...opts,
    message: 'Message for the model (optional)',
    defaultValue: '',
    ...(answer.typedAfter ? { initialValue: answer.typedAfter } : {}),
  });
  return { kind: 'reject', ...(prompts.isCancel(message) || !message ? {} : { message }) };
}

/**
 * Asks about each request: approve once, allow a command pattern (a shell command's prefix) or this tool for the rest
 * of the session, edit the arguments, or reject with a message the model sees (typed at the question, or after `n`).
 * "For this session" is a decision with `scope: 'session'`: the agent keeps it with the session, bound to the skill
 * file, and later calls of the tool run without asking (even after a resume); a later call of this batch that it
 * covers is answered the same way here (a path by the real path it names in `cwd`, the turn's workspace). Ctrl+C at
 * the question cancels the whole turn, as everywhere else in a turn.
 */
export async function askApprovals(
  io: Io,
  style: Style,
  requests: ApprovalRequest[],
  onCancel: () => void,
  cwd?: string,
): Promise<Record<string, ApprovalDecision>> {
  const prompts = await import('@clack/prompts');
  const { decisions, cancelled } = await decideApprovals(
    requests,
    (request) => askOne(io, style, request, prompts),
    (by) => io.stdout.write(`${sessionApprovedLine(style, by)}\n`),
    cwd,
  );
  if (cancelled) onCancel();
  return decisions;
}
