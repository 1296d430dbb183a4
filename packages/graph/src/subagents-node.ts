import { ToolMessage } from '@langchain/core/messages';
import { interrupt, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { activeAgent } from './agents.js';
import { approvalSource, approvalsInForce } from './approval-source.js';
import type { ApprovalInterrupt, BoundDecisions } from './approvals.js';
import { AgentError } from './errors.js';
import { newId } from './ids.js';
import { wholeToolGrantMayAnswer } from './session-approval.js';
import type { AgentStateUpdate, AgentStateValue } from './state.js';
import {
  type ChildOutcome,
  type ChildRequest,
  childThreadId,
  liftRequest,
  type SubagentRuns,
  waitingTasks,
} from './subagents.js';
import { DecisionBook } from './tool-confirm.js';
import { emit, emitAgent, turnContext } from './turn-context.js';
import type { ApprovalDecision, ApprovalRequest, SessionApproval } from './types.js';

type Settled = { ok: true; content: string } | { ok: false; content: string };

/**
 * Finishes the `task` calls whose subagents stopped for approvals. The subagents' threads are the truth: on every
 * execution this node reads what each one waits for, resumes the ones whose questions all have decisions (bound to
 * id + digest, given with the parent's resume), and asks the rest through the parent's own interrupt — under ids
 * `<task call id>/<child call id>`, with the child's agent path. So the parent's `resume` answers a subagent, also
 * after a restart (the parent's interrupt and the child's checkpoint are both stored), and a node re-run after a
 * later question never resumes a subagent twice: a finished one just reports its final answer.
 */
export function createSubagentsNode(subagents: SubagentRuns) {
  return async (state: AgentStateValue, config: LangGraphRunnableConfig): Promise<AgentStateUpdate> => {
    const context = turnContext(config);
    const active = activeAgent(state.sender, context.snapshot);
    emitAgent(config, active.name);
    const waiting = waitingTasks(state.messages);
    if (waiting.length === 0) return {};
    const ancestors = [...context.path, ...(active.name ? [active.name] : [])];
    const inForce = approvalsInForce(context.sessionApprovals, state.sessionApprovals);
    const request = (w: { id: string; agent: string }): ChildRequest => ({
      parent: { ...context, sessionApprovals: inForce },
      ancestors,
      callId: w.id,
      agent: w.agent,
      emit: (event) => emit(config, event),
    });
    const book = new DecisionBook();
    book.add(context.decisions);
    const settled = new Map<string, Settled>();
    // A subagent's call the user approved for the session: kept in this thread, so it holds for the whole session.
    const approvals: SessionApproval[] = [];
    const settle = (id: string, outcome: Settled) => settled.set(id, outcome);
    const started = Date.now();

    for (;;) {
      const open: ApprovalRequest[] = [];
      const ready: Array<{ w: (typeof waiting)[number]; decisions: Record<string, ApprovalDecision> }> = [];
      for (const w of waiting) {
        if (settled.has(w.id)) continue;
        const child = childThreadId(context.threadId, w.id);
        const pending = await subagents.pending(child);
        if (pending.length === 0) {
          const answer = await subagents.finalAnswer(child);
          settle(
            w.id,
            answer !== undefined
              ? { ok: true, content: answer }
              : {
                  ok: false,
                  content: `Error: subagent ${w.agent} stopped without a final answer (a failure, a cancel or a crash); calls it made may have had their effects.`,
                },
          );
          continue;
        }
        const decisions: Record<string, ApprovalDecision> = {};
        for (const r of pending) {
          const lifted = liftRequest(w.id, r);
          const decision = book.get(lifted);
          if (decision) decisions[r.id] = decision;
          else open.push(lifted);
        }
        if (Object.keys(decisions).length === pending.length) {
          ready.push({ w, decisions });
          for (const r of pending) {
            if (
              decisions[r.id]?.type !== 'approve' ||
              (decisions[r.id] as { scope?: string }).scope !== 'session'
            )
              continue;
            const source = approvalSource(
              { ...(r.skill ? { skill: r.skill } : { kind: 'builtin' }) },
              context.snapshot,
            );
            const pattern = (decisions[r.id] as { pattern?: string }).pattern;
            // As in the tools node: where a whole-tool grant could never answer, only a pattern is kept.
            if (pattern === undefined && !wholeToolGrantMayAnswer(r.reason, r, context.askRawCommands))
              continue;
            if (source !== undefined)
              approvals.push({
                tool: r.tool,
                ...(r.skill ? { skill: r.skill } : {}),
                source,
                at: new Date().toISOString(),
                // a session rule chosen for a subagent's call holds for the session, as a tool approval does
                ...(pattern !== undefined ? { pattern } : {}),
              });
          }
        }
      }
      if (ready.length > 0) {
        // Answered subagents go on side by side; the loop then reads again what each one waits for.
        const outcomes = await Promise.allSettled(
          ready.map(({ w, decisions }) => subagents.resume(request(w), decisions)),
        );
        outcomes.forEach((outcome, i) => {
          const { w } = ready[i] as (typeof ready)[number];
          if (outcome.status === 'rejected') {
            if (context.signal?.aborted) throw outcome.reason;
            settle(w.id, { ok: false, content: describeFailure(outcome.reason) });
          } else if (!('suspended' in (outcome.value as ChildOutcome))) {
            settle(w.id, { ok: true, content: (outcome.value as { content: string }).content });
          }
        });
        continue;
      }
      if (open.length === 0) break;
      book.add(interrupt<ApprovalInterrupt, BoundDecisions>({ kind: 'birdie/approval', requests: open }));
    }

    const durationMs = Date.now() - started;
    const messages: ToolMessage[] = [];
    for (const w of waiting) {
      const outcome = settled.get(w.id) as Settled;
      emit(config, {
        type: 'tool-end',
        id: w.id,
        name: 'task',
        ok: outcome.ok,
        output: outcome.content,
        truncated: false,
        durationMs,
      });
      await Promise.resolve(
        context.journal?.finished({
          id: w.id,
          ok: outcome.ok,
          durationMs,
          truncated: false,
          ...(outcome.ok ? {} : { error: outcome.content.slice(0, 500) }),
        }),
      ).catch(() => undefined);
      messages.push(
        new ToolMessage({
          id: newId('tool'),
          tool_call_id: w.id,
          name: 'task',
          content: outcome.content,
          status: outcome.ok ? 'success' : 'error',
        }),
      );
    }
    const update: AgentStateUpdate = { messages };
    if (approvals.length > 0) update.sessionApprovals = approvals;
    if (context.switchAgent !== undefined) update.sender = context.switchAgent;
    return update;
  };
}

function describeFailure(error: unknown): string {
  if (error instanceof AgentError) return `Error (${error.code}): ${error.message}`;
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}
