import type { AgentEvent, ApprovalDecision, ApprovalMode, ApprovalRequest, DoneStatus } from '@birdie/graph';
import type { FinishedStatus, Session } from '@birdie/store';
import type { Runtime } from './runtime.js';
import { sessionToolEnv } from './session-dir.js';

export interface TurnHandlers {
  onEvent(event: AgentEvent): void;
  /** Called for each approval interrupt; resolves to one decision per request id. */
  decide(requests: ApprovalRequest[]): Promise<Record<string, ApprovalDecision>>;
}

export interface TurnResult {
  status: DoneStatus | 'rejected';
  inputTokens: number;
  outputTokens: number;
  /** Input tokens of the last model call: how much context the conversation takes now. */
  contextTokens: number;
  toolCalls: number;
  rejected: number;
  error?: string;
}

/**
 * One user turn: stream, answer approval interrupts until the graph finishes, and write the run log and the
 * session's token totals. Never throws for a run failure; the result says what happened.
 */
export async function executeTurn(
  rt: Runtime,
  session: Session,
  text: string,
  options: { approval: ApprovalMode; signal: AbortSignal; handlers: TurnHandlers },
): Promise<TurnResult> {
  const { store } = rt;
  const runId = store.runs.start({
    sessionId: session.id,
    model: `${rt.provider.config.vendor}/${rt.provider.config.model}`,
  });
  const result: TurnResult = {
    status: 'ok',
    inputTokens: 0,
    outputTokens: 0,
    contextTokens: 0,
    toolCalls: 0,
    rejected: 0,
  };
  const skills = new Map<string, string | undefined>();
  const memory = store.memory.list(rt.userId).map((m) => ({ id: String(m.id), content: m.content }));
  try {
    // Tools learn their session (BIRDIE_SESSION_DIR etc.) per turn; the graph keeps it out of checkpoints.
    const toolEnv = await sessionToolEnv(rt.io.env, session.id);
    const turn = { memory, approval: options.approval, signal: options.signal, cwd: rt.cwd, toolEnv };
    let stream: AsyncIterable<AgentEvent> = rt.agent.stream(text, { threadId: session.id, ...turn });
    for (;;) {
      let pending: ApprovalRequest[] | undefined;
      let done: DoneStatus = 'ok';
      for await (const event of stream) {
        options.handlers.onEvent(event);
        if (event.type === 'usage') {
          result.inputTokens += event.inputTokens;
          result.outputTokens += event.outputTokens;
          result.contextTokens = event.inputTokens + event.outputTokens;
        } else if (event.type === 'tool-start') {
          skills.set(event.id, event.skill);
        } else if (event.type === 'tool-end') {
          result.toolCalls++;
          const skill = skills.get(event.id);
          store.runs.toolCall(runId, {
            name: event.name,
            ...(skill ? { skill } : {}),
            durationMs: Math.round(event.durationMs),
            ok: event.ok,
            truncated: event.truncated,
            ...(event.ok ? {} : { error: event.output.slice(0, 500) }),
          });
        } else if (event.type === 'approval-request') {
          pending = [...(pending ?? []), ...event.requests];
        } else if (event.type === 'error') {
          result.error = event.error.message;
        } else if (event.type === 'done') {
          done = event.status;
        }
      }
      if (done === 'interrupted' && pending?.length && !options.signal.aborted) {
        const decisions = await options.handlers.decide(pending);
        // Cancelled while being asked: nothing runs; the graph repairs the unanswered calls on the next turn.
        if (options.signal.aborted) {
          result.status = 'aborted';
          break;
        }
        result.rejected += Object.values(decisions).filter((d) => d.type === 'reject').length;
        stream = rt.agent.resume(session.id, decisions, turn);
        continue;
      }
      result.status = options.signal.aborted ? 'aborted' : done;
      break;
    }
  } catch (error) {
    result.status = options.signal.aborted ? 'aborted' : 'error';
    result.error = error instanceof Error ? error.message : String(error);
  }
  if (result.status === 'ok' && result.rejected > 0) result.status = 'rejected';
  const logged: FinishedStatus =
    result.status === 'aborted' || result.status === 'interrupted' ? 'interrupted' : result.status;
  store.runs.finish(runId, {
    status: logged,
    inputTokens: result.inputTokens,
    outputTokens: result.outputTokens,
    ...(result.error ? { error: result.error } : {}),
  });
  store.sessions.recordTurn(session.id, {
    inputTokens: result.inputTokens,
    outputTokens: result.outputTokens,
  });
  return result;
}
