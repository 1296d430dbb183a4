import { AgentError } from './errors.js';
import { timerMs } from './limits.js';

/**
 * The clock of one run. Every run has one (an abort controller, nothing more, until armed); the first node of an
 * agent with a `timeout` arms it, and when it fires the run's signal aborts: the model call and running tools stop.
 */
export class Deadline {
  readonly #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unfollow: (() => void) | undefined;
  fired: { agent: string; seconds: number } | undefined;
  closed = false;

  /**
   * Aborts with the application's signal too, so the run needs one plain signal. Not `AbortSignal.any`: Node 20 keeps
   * a composite signal alive for as long as an abort listener is attached to it, and LangGraph's `stream` attaches one
   * it never removes, so a long-running server kept every turn's signals (and what they hold) for good.
   */
  follow(signal: AbortSignal | undefined): void {
    if (!signal) return;
    const controller = this.#controller;
    if (signal.aborted) {
      controller.abort(signal.reason);
      return;
    }
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    this.#unfollow = () => signal.removeEventListener('abort', onAbort);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  arm(seconds: number, agent: string): void {
    if (this.#timer !== undefined || this.fired || !(seconds > 0)) return;
    this.#timer = setTimeout(() => {
      this.fired = { agent, seconds };
      this.#controller.abort(this.error());
    }, timerMs(seconds));
    this.#timer.unref?.();
  }

  error(): AgentError {
    const { agent, seconds } = this.fired ?? { agent: '?', seconds: 0 };
    return new AgentError(
      'agent-timeout',
      `Agent ${agent} did not finish within ${seconds} s (its timeout); its running tools were stopped.`,
    );
  }

  /** The agent was closed while the run went on: its nodes and running tools stop, and the run ends `closed`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#controller.abort(
      new AgentError('closed', 'The agent was closed during this run; its running tools were stopped.'),
    );
  }

  /** The run's consumer stopped reading its events: its nodes stop, as on a cancel. */
  stop(): void {
    this.#controller.abort();
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#unfollow?.();
    this.#unfollow = undefined;
  }
}
