import type { OutputChunk } from '@birdie/entrypoints';
import { ToolMessage } from '@langchain/core/messages';
import { newId } from './ids.js';
import { LIVE_OUTPUT_MAX_CHARS, tail } from './tool-live-output.js';
import type { SessionApproval } from './types.js';

/** A call of the tools step in progress: its output so far, and its answer once it has one. */
interface CallInProgress {
  name: string;
  started: number;
  output: string;
  truncated: boolean;
  answer?: ToolMessage;
}

/** Who stopped a call while it ran: the user (a cancel), or the application closing the agent. */
export type StoppedBy = 'user' | 'close';

const STOPPED: Record<StoppedBy, string> = {
  user: 'Cancelled by the user',
  close: 'Stopped because birdie was closed',
};

/** What the model reads for a call the user cancelled (or the agent's close stopped) while it ran. */
export function cancelledCallResult(output: string, truncated: boolean, by: StoppedBy = 'user'): string {
  const note = output
    ? `[${STOPPED[by]} while it ran: the output above is ${truncated ? 'the end of ' : ''}what it printed before it was stopped. It may have had part of its effect; check before calling it again.]`
    : `[${STOPPED[by]} while it ran, before it printed anything. It may have had part of its effect; check before calling it again.]`;
  return output ? `${output}${output.endsWith('\n') ? '' : '\n'}${note}` : note;
}

/**
 * The calls of a turn's tools step (and the session approvals given for it), kept while they run: when the user cancels the turn, the step never completes (its
 * results are not checkpointed), so the runner answers each call from here instead: a finished call with its real
 * result, a running one with what it printed so far (the newest `LIVE_OUTPUT_MAX_CHARS`) marked cancelled. Without
 * this, the next turn's repair could only say "crash or cancel" and the user's screen would lose the output.
 */
export class CallsInProgress {
  readonly #calls = new Map<string, CallInProgress>();
  /** Tools the user approved for the session in this step: kept even if the step is cut off. */
  #approvals: SessionApproval[] = [];

  approved(approvals: SessionApproval[]): void {
    this.#approvals = approvals;
  }

  started(id: string, name: string): void {
    this.#calls.set(id, { name, started: Date.now(), output: '', truncated: false });
  }

  output(id: string, chunk: OutputChunk): void {
    const call = this.#calls.get(id);
    if (!call || !chunk.text) return;
    const text = call.output + chunk.text;
    // Trimmed only when well past the cap, so small chunks are not copied on every one.
    if (text.length > 2 * LIVE_OUTPUT_MAX_CHARS) {
      call.output = tail(text, LIVE_OUTPUT_MAX_CHARS);
      call.truncated = true;
    } else call.output = text;
  }

  answered(id: string, message: ToolMessage): void {
    const call = this.#calls.get(id);
    if (call) call.answer = message;
  }

  /** The answers owed when the step was cut off: finished calls as they ended, running ones as cancelled. */
  settle(by: StoppedBy = 'user'): {
    messages: ToolMessage[];
    sessionApprovals: SessionApproval[];
    cancelled: { id: string; name: string; output: string; truncated: boolean; durationMs: number }[];
  } {
    const messages: ToolMessage[] = [];
    const cancelled = [];
    for (const [id, call] of this.#calls) {
      if (call.answer) {
        messages.push(call.answer);
        continue;
      }
      const output = call.truncated ? tail(call.output, LIVE_OUTPUT_MAX_CHARS) : call.output;
      const content = cancelledCallResult(output, call.truncated, by);
      messages.push(
        new ToolMessage({ id: newId('tool'), tool_call_id: id, name: call.name, status: 'error', content }),
      );
      cancelled.push({
        id,
        name: call.name,
        output: content,
        truncated: call.truncated,
        durationMs: Date.now() - call.started,
      });
    }
    const sessionApprovals = this.#approvals;
    this.#calls.clear();
    this.#approvals = [];
    return { messages, sessionApprovals, cancelled };
  }
}
