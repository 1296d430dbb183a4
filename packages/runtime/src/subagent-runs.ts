import type { AgentEvent } from '@birdie/graph';
import type { FinishedStatus, Store } from '@birdie/store';
import { RunUsage } from './run-usage.js';
import type { Runtime } from './runtime.js';

interface Child {
  runId: number;
  /** The agent path its own events carry (`['reviewer', 'researcher']`). */
  path: string;
  usage: RunUsage;
}

/**
 * A subagent's work as a run of its own in the log, child of the run whose agent called `task`: started at the
 * `task` call, given the usage of the events from its agent path, finished with the call's outcome (its answer, or
 * its error). The parent run's totals still include it: they are what the turn cost.
 */
export class SubagentRuns {
  readonly #byCall = new Map<string, Child>();
  readonly #byPath = new Map<string, Child>();

  constructor(
    private readonly rt: Runtime,
    private readonly base: { sessionId: string; userId: string; model: string; runId: number },
  ) {}

  /** A promise for the events that write to the store (a `task` call's start and end, a subagent's usage). */
  onEvent(event: AgentEvent): Promise<void> | undefined {
    if (event.type === 'tool-start' && event.name === 'task') return this.#start(event);
    if (event.type === 'tool-end' && this.#byCall.has(event.id)) return this.#end(event);
    if (event.type === 'usage' && (event.agent?.length ?? 0) > 0) {
      const child = this.#byPath.get(event.agent!.join('/'));
      if (!child) return;
      child.usage.add(event);
      return this.store.runs.progress(child.runId, child.usage.recorded());
    }
  }

  /** Children still open when the turn ends (cancelled, failed) end with the turn's status. */
  async finishAll(status: FinishedStatus): Promise<void> {
    for (const [id, child] of this.#byCall) {
      this.#byCall.delete(id);
      await this.#finish(child, { status });
    }
  }

  async #start(event: Extract<AgentEvent, { type: 'tool-start' }>): Promise<void> {
    const name = typeof event.args.agent === 'string' ? event.args.agent : undefined;
    if (!name) return;
    const caller = event.agent ?? [];
    const parent = caller.length > 1 ? this.#byPath.get(caller.join('/'))?.runId : undefined;
    const spec = this.rt.registry.current().getAgent?.(name);
    // The subagent's own tier until its first call names the model that answered.
    const model = spec?.model ?? this.base.model;
    const { childThreadId } = await import('@birdie/graph');
    const runId = await this.store.runs.start({
      sessionId: this.base.sessionId,
      // Its conversation: the subagent's own thread, which the log references like any other.
      threadId: childThreadId(this.base.sessionId, event.id),
      userId: this.base.userId,
      model,
      parentRunId: parent ?? this.base.runId,
      trigger: `task ${event.id}`,
      ...(spec ? { agent: { name: spec.name, digest: spec.digest } } : {}),
    });
    const child: Child = {
      runId,
      path: [...caller, name].join('/'),
      usage: new RunUsage(model),
    };
    this.#byCall.set(event.id, child);
    this.#byPath.set(child.path, child);
  }

  async #end(event: Extract<AgentEvent, { type: 'tool-end' }>): Promise<void> {
    const child = this.#byCall.get(event.id)!;
    this.#byCall.delete(event.id);
    await this.#finish(
      child,
      event.ok
        ? { status: 'ok', answer: event.output }
        : { status: 'error', error: event.output.slice(0, 2000) },
    );
  }

  async #finish(
    child: Child,
    outcome: { status: FinishedStatus; answer?: string; error?: string },
  ): Promise<void> {
    await this.store.runs.finish(child.runId, { ...outcome, ...child.usage.recorded() });
  }

  private get store(): Store {
    return this.rt.store;
  }
}
