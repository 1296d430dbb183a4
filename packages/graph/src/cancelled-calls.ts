import type { OutputChunk } from '@birdie/entrypoints';
import { ToolMessage } from '@langchain/core/messages';
import { newId } from './ids.js';
import { LIVE_OUTPUT_MAX_CHARS, tail } from './tool-live-output.js';
import { CANCELLED_BY_USER } from './stop-reason.js';
import type { SessionApproval } from './types.js';

/** A call of the tools step in progress: its output so far, and its answer once it has one. */
interface CallInProgress {
  name: string;
  started: number;
  output: string;
  truncated: boolean;
  answer?: ToolMessage;
  /** Settles once the call's run has returned (its end journaled, when there is a journal). */
  ended: Promise<void>;
  end: () => void;
}

/** What the model reads for a call stopped while it ran; `note` says who or what stopped it. */
export function cancelledCallResult(
  output: string,
  truncated: boolean,
  note: string = CANCELLED_BY_USER,
): string {
  const text = output
    ? `[${note} while it ran: the output above is ${truncated ? 'the end of ' : ''}what it printed before it was stopped. It may have had part of its effect; check before calling it again.]`
    : `[${note} while it ran, before it printed anything. It may have had part of its effect; check before calling it again.]`;
  return output ? `${output}${output.endsWith('\n') ? '' : '\n'}${text}` : text;
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
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.#calls.set(id, { name, started: Date.now(), output: '', truncated: false, ended, end });
  }

  /** The call's run returned (after its end was journaled): a stop waiting for it (`stopped`) goes on. */
  ended(id: string): void {
    this.#calls.get(id)?.end();
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

  answered(id: string, message: ToolMessage, ok = true): void {
    const call = this.#calls.get(id);
    // A failure that comes after the stop is taken for the stop's own doing (the abort ended it): the call is
    // answered as cut off. A success is what the tool did, stop or not: its result stands.
    if (call && (ok || !this.#stopping)) call.answer = message;
  }

  #stopping = false;

  /**
   * The step was cut off: answers that come from now on are not taken. Waits, at most `waitMs`, for the calls still
   * running to return: the stop aborted them, and a call that returned has its end journaled (a process stopped and
   * seen to end is not "result unknown" for the run log), before the run ends and its process maybe exits. A call
   * still running after `waitMs` is left as it is: its journal row says it started, result unknown.
   */
  async stopped(waitMs: number): Promise<void> {
    this.#stopping = true;
    const running = [...this.#calls.values()].filter((c) => !c.answer).map((c) => c.ended);
    if (running.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(running),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** The answers owed when the step was cut off: finished calls as they ended, running ones as stopped (`note`). */
  settle(note: string = CANCELLED_BY_USER): {
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
      const content = cancelledCallResult(output, call.truncated, note);
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
    this.#stopping = false;
    return { messages, sessionApprovals, cancelled };
  }
}
