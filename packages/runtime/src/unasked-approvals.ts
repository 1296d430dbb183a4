import type { ApprovalDecision, ApprovalRequest, McpTurnHandlers } from '@birdie/graph';
import type { TurnHandlers, TurnOptions } from './turn.js';

export const SAMPLING_REFUSAL =
  'birdie run does not ask before an MCP server uses the model: refused. Rerun with --yes to allow it.';

export const REFUSAL =
  'birdie run does not ask for approval: refused. Rerun with --yes to approve such calls, or --approval never.';

const REFUSED = 'birdie run does not ask for approval: refused.';

/**
 * What one refused call is told: `REFUSAL`, unless a rule asked. A rule asks in every approval mode, so
 * `--approval never` would not let the call run (and is often what the run was given); only `--yes` would.
 */
export function refusalOf(request: ApprovalRequest): string {
  if (request.reason !== 'rule' || !request.rule) return REFUSAL;
  const { pattern, effect, source } = request.rule;
  const where = `(${source.kind}${source.name ? ` ${source.name}` : ''})`;
  return effect === 'ask'
    ? `${REFUSED} The ask rule \`${pattern}\` ${where} asks before this call in every approval mode; rerun with --yes to approve it.`
    : `${REFUSED} The command line is too complex to check against the deny rule \`${pattern}\` ${where}, so it asks in every approval mode; rerun with --yes to approve it.`;
}

/** What a caller is told of each refusal, to say it its own way (a line on stderr, a `--json` event). */
export interface UnaskedRefusals {
  /** `refusal`: what the call was told (`refusalOf`). */
  approval(request: ApprovalRequest, refusal: string): void;
  sampling(server: string): void;
}

/**
 * The answers of a turn nobody can be asked during (`birdie run`): with `yes`, every call that needs approval runs
 * and every MCP sampling request goes to the model; without, each call is refused, unasked, with `REFUSAL` (the model
 * reads it; `refusalOf` when a rule asked) and each sampling request with `SAMPLING_REFUSAL`, told to `on`. `beforeLog` puts the refusal and the
 * tools it refused in the run log's error; `refused()` counts the refusals so far.
 */
export function unaskedApprovals(yes: boolean, on: UnaskedRefusals) {
  let refused = 0;
  const refusedTools: string[] = [];
  const refusals = new Set<string>();
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
      const refusal = refusalOf(request);
      refusals.add(refusal);
      decisions[request.id] = { type: 'reject', message: refusal, unasked: true };
      on.approval(request, refusal);
    }
    return decisions;
  };
  // The run log says why the run was rejected: nobody was asked, and which calls that refused.
  const beforeLog: NonNullable<TurnOptions['beforeLog']> = (result) => {
    if (refusedTools.length > 0 && !result.error)
      result.error = `${[...refusals].join(' ')} (${[...new Set(refusedTools)].join(', ')})`;
  };
  return { approveSampling, decide, beforeLog, refused: () => refused };
}
