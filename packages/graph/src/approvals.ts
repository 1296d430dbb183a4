import { AgentError } from './errors.js';
import type { RuntimeTool } from './runtime-tool.js';
import type { ApprovalDecision, ApprovalRequest } from './types.js';

/** The payload given to LangGraph's `interrupt()`; `getState` reads it back after a restart. */
export interface ApprovalInterrupt {
  kind: 'birdie/approval';
  requests: ApprovalRequest[];
}

export function isApprovalInterrupt(value: unknown): value is ApprovalInterrupt {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as ApprovalInterrupt).kind === 'birdie/approval' &&
    Array.isArray((value as ApprovalInterrupt).requests)
  );
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function describeCall(
  tool: RuntimeTool,
  args: Record<string, unknown>,
  reason: ApprovalRequest['reason'],
): string {
  if (reason === 'raw-command' && typeof args.command === 'string')
    return `Run shell command: ${clip(args.command, 300)}`;
  const owner = tool.skill ? `${tool.skill} › ` : '';
  return `${owner}${tool.name}(${clip(JSON.stringify(args), 300)}): ${clip(tool.description, 160)}`;
}

export function validateDecisions(
  pending: ApprovalRequest[],
  decisions: Record<string, ApprovalDecision>,
): void {
  const missing = pending.filter((r) => !Object.hasOwn(decisions, r.id));
  if (missing.length > 0) {
    throw new AgentError(
      'missing-decision',
      `No decision for: ${missing.map((r) => `${r.tool} (${r.id})`).join(', ')}.`,
    );
  }
  for (const [id, decision] of Object.entries(decisions)) {
    const type = (decision as { type?: unknown } | null)?.type;
    if (type !== 'approve' && type !== 'edit' && type !== 'reject') {
      throw new AgentError('unknown-decision', `Decision for ${id} must be approve, edit or reject.`);
    }
    if (
      type === 'edit' &&
      (typeof (decision as { args?: unknown }).args !== 'object' ||
        (decision as { args?: unknown }).args === null)
    ) {
      throw new AgentError('unknown-decision', `The edit decision for ${id} needs an args object.`);
    }
  }
}
