import type { BoundDecisions } from './approvals.js';
import type { PlannedCall } from './tool-plan.js';
import type { ApprovalDecision, ApprovalRequest } from './types.js';

/** Decisions collected so far, keyed by call id and digest: a decision answers the call the user saw and no other. */
export class DecisionBook {
  readonly #byCall = new Map<string, ApprovalDecision>();

  add(decisions: BoundDecisions | undefined): void {
    for (const [id, bound] of Object.entries(decisions ?? {})) {
      const { digest, ...decision } = bound;
      this.#byCall.set(key(id, digest), decision as ApprovalDecision);
    }
  }

  get(call: { id: string; digest: string }): ApprovalDecision | undefined {
    return this.#byCall.get(key(call.id, call.digest));
  }
}

const key = (id: string, digest: string) => `${id}\u0000${digest}`;

/**
 * Step 2 of the tools node: every call that needs approval and has no decision bound to it is put to the user with
 * `ask` (LangGraph's `interrupt()`), before *any* call of the batch runs. On resume, `ask` returns the recorded
 * answers in order; an answer that matches no call (other arguments than the ones shown) leaves the call undecided,
 * and it is asked again — never run. Decisions given with the resume bind even when the resuming turn's mode would
 * not ask, so a rejected call stays rejected.
 */
export function confirmCalls(
  plan: readonly PlannedCall[],
  given: BoundDecisions,
  ask: (requests: ApprovalRequest[]) => BoundDecisions,
): DecisionBook {
  const book = new DecisionBook();
  book.add(given);
  for (;;) {
    const open = plan.flatMap((p) =>
      p.kind === 'run' && p.request && !book.get({ id: p.id, digest: p.invocation.digest })
        ? [p.request]
        : [],
    );
    if (open.length === 0) return book;
    // Each round is one interrupt: answered ones return their recorded value, the first unanswered one stops the run.
    book.add(ask(open));
  }
}
