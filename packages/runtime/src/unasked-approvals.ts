import type { ApprovalDecision, ApprovalRequest, McpTurnHandlers } from '@birdie/graph';
import type { TurnHandlers, TurnOptions } from './turn.js';

export const SAMPLING_REFUSAL =
  'birdie run does not ask before an MCP server uses the model: refused. Rerun with --yes to allow it.';

export const REFUSAL =
  'birdie run does not ask for approval: refused. Rerun with --yes to approve such calls, or --approval never.';

/** What a caller is told of each refusal, to say it its own way (a line on stderr, a `--json` event). */
export interface UnaskedRefusals {
  approval(request: ApprovalRequest): void;
  sampling(server: string): void;
}

/**
 * The answers of a turn nobody can be asked during (`birdie run`): with `yes`, every call that needs approval runs
 * and every MCP sampling request goes to the model; without, each call is refused, unasked, with `REFUSAL` (the model
 * reads it) and each sampling request with `SAMPLING_REFUSAL`, told to `on`. `beforeLog` puts the refusal and the
 * tools it refused in the run log's error; `refused()` counts the refusals so far.
 */
export function unaskedApprovals(yes: boolean, on: UnaskedRefusals) {
  let refused = 0;
  const refusedTools: string[] = [];
  const approveSampling: NonNullable<McpTurnHandlers['approveSampling']> = async ({ server, answer }) => {
    if (yes) return true;
    if (answer !== undefined) return false;
    refused++;
    on.sampling(server);
    return false;
  };
  const decide: TurnHandlers['decide'] = async (requests) => {
    const decisions: Record<string, ApprovalDecision> = {};
    for (const request of requests) {
      if (yes) {
        decisions[request.id] = { type: 'approve' };
        continue;
      }
      refused++;
      refusedTools.push(request.tool);
      decisions[request.id] = { type: 'reject', message: REFUSAL, unasked: true };
      on.approval(request);
    }
    return decisions;
  };
  // The run log says why the run was rejected: nobody was asked, and which calls that refused.
  const beforeLog: NonNullable<TurnOptions['beforeLog']> = (result) => {
    if (refusedTools.length > 0 && !result.error)
      result.error = `${REFUSAL} (${[...new Set(refusedTools)].join(', ')})`;
  };
  return { approveSampling, decide, beforeLog, refused: () => refused };
}
