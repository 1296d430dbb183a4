import { AgentError } from './errors.js';

/**
 * The clock of one run. Every run has one (an abort controller, nothing more, until armed); the first node of an
 * agent with a `timeout` arms it, and when it fires the run's signal aborts: the model call and running tools stop.
 */
export class Deadline {
  readonly #controller = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  fired: { agent: string; seconds: number } | undefined;

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  arm(seconds: number, agent: string): void {
    if (this.#timer !== undefined || this.fired || !(seconds > 0)) return;
    this.#timer = setTimeout(() => {
      this.fired = { agent, seconds };
      this.#controller.abort(this.error());
    }, seconds * 1000);
    this.#timer.unref?.();
  }

  error(): AgentError {
    const { agent, seconds } = this.fired ?? { agent: '?', seconds: 0 };
    return new AgentError(
      'agent-timeout',
      `Agent ${agent} did not finish within ${seconds} s (its timeout); its running tools were stopped.`,
    );
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }
}
