import type { AgentEvent } from '@birdie/graph';
import type { RunProgress } from '@birdie/store';

type UsageEvent = Extract<AgentEvent, { type: 'usage' }>;

/**
 * The tokens a run has used, per model, and the model of its latest call: what the run log records as the run goes
 * (so a run whose process is killed keeps them) and at its end. A call's usage names the model that answered it
 * (an agent's tier, the router's switch); `fallback` names it when the vendor does not.
 */
export class RunUsage {
  readonly #byModel = new Map<string, { inputTokens: number; outputTokens: number }>();
  inputTokens = 0;
  outputTokens = 0;
  /** The model of the latest call, once one reported. */
  model: string | undefined;

  constructor(private readonly fallback: string) {}

  add(event: UsageEvent): void {
    const name = event.model || this.fallback;
    const total = this.#byModel.get(name) ?? { inputTokens: 0, outputTokens: 0 };
    total.inputTokens += event.inputTokens;
    total.outputTokens += event.outputTokens;
    this.#byModel.set(name, total);
    this.inputTokens += event.inputTokens;
    this.outputTokens += event.outputTokens;
    this.model = name;
  }

  /** As the store takes it (`runs.progress`, and the same fields of `runs.finish`). */
  recorded(): RunProgress {
    return {
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      usage: [...this.#byModel].map(([model, u]) => ({ model, ...u })),
      ...(this.model ? { model: this.model } : {}),
    };
  }
}
