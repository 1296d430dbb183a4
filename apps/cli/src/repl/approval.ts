import type { ApprovalDecision, ApprovalRequest } from '@birdie/graph';
import { checkToolArgs } from '@birdie/graph/tools';
import type { Io } from '../io.js';
import type { Style } from '../render/style.js';

export type ApprovalChoice = 'once' | 'session' | 'edit' | 'reject';

/**
 * Asks about each request: approve once, approve this tool for the rest of the session, edit the arguments, or
 * reject with a message the model sees. Tools approved for the session are answered without asking.
 */
export async function askApprovals(
  io: Io,
  style: Style,
  requests: ApprovalRequest[],
  approvedTools: Set<string>,
  onCancel: () => void,
): Promise<Record<string, ApprovalDecision>> {
  const prompts = await import('@clack/prompts');
  const opts = { input: io.stdin, output: io.stdout };
  const decisions: Record<string, ApprovalDecision> = {};
  for (const request of requests) {
    if (approvedTools.has(request.tool)) {
      decisions[request.id] = { type: 'approve' };
      io.stdout.write(
        `${style('green', '✓')} ${style('dim', `${request.tool} approved for this session`)}\n`,
      );
      continue;
    }
    const args = JSON.stringify(request.args, null, 2);
    prompts.note(
      `${request.description}\n\n${args}`,
      `${request.tool}${request.skill ? ` (${request.skill})` : ''} needs approval`,
      { output: io.stdout },
    );
    const choice = await prompts.select<ApprovalChoice>({
      ...opts,
      message: 'Run it?',
      options: [
        { value: 'once', label: 'Approve once' },
        { value: 'session', label: `Approve ${request.tool} for this session` },
        { value: 'edit', label: 'Edit the arguments' },
        { value: 'reject', label: 'Reject, with a message for the model' },
      ],
    });
    if (prompts.isCancel(choice)) {
      // Ctrl+C (or Escape) at the question cancels the whole turn, as Ctrl+C does everywhere else in a turn.
      onCancel();
      for (const r of requests)
        decisions[r.id] ??= { type: 'reject', message: 'The user cancelled the turn.' };
      return decisions;
    }
    if (choice === 'once') decisions[request.id] = { type: 'approve' };
    else if (choice === 'session') {
      approvedTools.add(request.tool);
      decisions[request.id] = { type: 'approve' };
    } else if (choice === 'edit') {
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
    } else {
      const message = await prompts.text({
        ...opts,
        message: 'Message for the model (optional)',
        defaultValue: '',
      });
      decisions[request.id] = {
        type: 'reject',
        ...(prompts.isCancel(message) || !message ? {} : { message }),
      };
    }
  }
  return decisions;
}
