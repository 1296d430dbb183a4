import type { ApprovalDecision, ApprovalRequest } from '@birdie/graph';
import { checkToolArgs } from '@birdie/graph/tools';
import { ApprovalBatch } from '@birdie/runtime/approval-batch';
import type { Io } from '../io.js';
import { sessionApprovedLine } from '../render/events.js';
import type { Style } from '../render/style.js';
import { type ApprovalBox, type ToneLine, visible } from './approval-box.js';
import { type ApprovalAnswer, askApprovalChoice } from './approval-choice.js';

/**
 * What the question shows: the call's description, then the diff of the files it changes, or its arguments; first,
 * for a tool the model added itself with `find_tools`, a line that says so.
 */
export async function approvalBox(request: ApprovalRequest): Promise<ApprovalBox> {
  const text = (value: string): ToneLine[] => value.split('\n').map((line) => ({ text: visible(line) }));
  // The diff library loads with the first question that shows a change, not with the REPL.
  const details = request.preview
    ? (await import('./change-view.js')).changeLines(request.preview)
    : text(JSON.stringify(request.args, null, 2));
  return {
    title: `${request.tool}${request.skill ? ` (${request.skill})` : ''} needs approval`,
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
 * session needs a separate confirmation (typing the tool's name); anything else goes back to the question.
 */
async function askChoice(
  io: Io,
  style: Style,
  request: ApprovalRequest,
  prompts: typeof import('@clack/prompts'),
): Promise<ApprovalAnswer & { pattern?: string }> {
  const shell = request.raw === true || request.reason === 'raw-command';
  const command = typeof request.args.command === 'string' ? request.args.command : undefined;
  // "Allow this command prefix": the exact pattern the session rule will be, offered only when one is safe to offer.
  const prefixPattern =
    shell && command !== undefined
      ? (await import('@birdie/graph')).suggestCommandPattern(command, request.tool)
      : undefined;
  for (;;) {
    const answer = await askApprovalChoice(io, style, request.tool, await approvalBox(request), {
      shell,
      ...(prefixPattern ? { prefixPattern } : {}),
    });
    if (answer.choice === 'prefix')
      return { ...answer, ...(prefixPattern ? { pattern: prefixPattern } : {}) };
    if (answer.choice !== 'session' || !shell) return answer;
    const confirmed = await prompts.text({
      input: io.stdin,
      output: io.stdout,
      message: `Every command ${request.tool} is given will run without asking, for the rest of this session. Type ${request.tool} to confirm (anything else goes back)`,
      defaultValue: '',
    });
    if (!prompts.isCancel(confirmed) && confirmed.trim() === request.tool) return answer;
  }
}

/**
 * Asks about each request: approve once, allow a command pattern (a shell command's prefix) or this tool for the rest
 * of the session, edit the arguments, or
 * reject with a message the model sees (typed at the question, or after `n`). "For this session" is a decision with `scope: 'session'`: the agent keeps
 * it with the session, bound to the skill file, and later calls of the tool run without asking (even after a
 * resume); a second call of the same tool in this batch is answered the same way here.
 */
export async function askApprovals(
  io: Io,
  style: Style,
  requests: ApprovalRequest[],
  onCancel: () => void,
): Promise<Record<string, ApprovalDecision>> {
  const prompts = await import('@clack/prompts');
  const opts = { input: io.stdin, output: io.stdout };
  const decisions: Record<string, ApprovalDecision> = {};
  // Tools and command patterns allowed for the session at this question: a later call they cover is not asked.
  const batch = new ApprovalBatch();
  for (const request of requests) {
    const covered = await batch.covered(request);
    if (covered) {
      decisions[request.id] = covered.decision;
      io.stdout.write(`${sessionApprovedLine(style, covered.by)}\n`);
      continue;
    }
    const answer = await askChoice(io, style, request, prompts);
    const { choice } = answer;
    if (choice === 'cancel') {
      // Ctrl+C at the question cancels the whole turn, as Ctrl+C does everywhere else in a turn.
      onCancel();
      for (const r of requests)
        decisions[r.id] ??= { type: 'reject', message: 'The user cancelled the turn.' };
      return decisions;
    }
    if (choice === 'escape') {
      // Esc turns this one call down and the turn goes on (the other calls are still asked about).
      decisions[request.id] = { type: 'reject' };
      continue;
    }
    if (choice === 'once') decisions[request.id] = { type: 'approve' };
    else if (choice === 'prefix' && answer.pattern)
      decisions[request.id] = batch.allowPattern(answer.pattern);
    else if (choice === 'session') decisions[request.id] = batch.allowTool(request.tool);
    else if (choice === 'edit') {
      const edited = await prompts.text({
        ...opts,
        message: 'Arguments (JSON object)',
        initialValue: JSON.stringify(request.args),
        validate: (value) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(value ?? '');
          } catch (error) {
            return `not JSON: ${(error as Error).message}`;
          }
          if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return 'must be a JSON object';
          // The tool's own schema, as the call will be checked: a bad edit is fixed here, not failed later.
          const problem = request.parameters ? checkToolArgs(request.parameters, parsed) : undefined;
          return problem?.replace('Invalid arguments, fix them and call again:', 'Not valid for the tool:');
        },
      });
      decisions[request.id] = prompts.isCancel(edited)
        ? { type: 'reject', message: 'The user cancelled the edit.' }
        : { type: 'edit', args: JSON.parse(edited) as Record<string, unknown> };
    } else if (answer.message !== undefined) {
      // Text typed at the question and sent with Enter: the rejection, with that text for the model.
      decisions[request.id] = { type: 'reject', message: answer.message };
    } else {
      // What was typed right after `n` starts the message, so it is neither lost nor taken as keys.
      const message = await prompts.text({
        ...opts,
        message: 'Message for the model (optional)',
        defaultValue: '',
        ...(answer.typedAfter ? { initialValue: answer.typedAfter } : {}),
      });
      decisions[request.id] = {
        type: 'reject',
        ...(prompts.isCancel(message) || !message ? {} : { message }),
      };
    }
  }
  return decisions;
}
