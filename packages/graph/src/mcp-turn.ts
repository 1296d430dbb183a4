import type { McpNotice, McpTurn } from './mcp-connection.js';

/**
 * What MCP servers say to one run while none of its calls runs, queued for the run's event stream: the runner yields
 * them as they arrive (`arrived` wakes it while it waits for the graph) and the rest once the run ended.
 */
export class McpTurnNotices implements McpTurn {
  #ended = false;
  #held = false;
  #queue: McpNotice[] = [];
  #wake?: () => void;

  get ended(): boolean {
    return this.#ended;
  }

  /** True once the run called a tool on an MCP connection: only from then on can a server say something to it. */
  get held(): boolean {
    return this.#held;
  }

  hold(): void {
    this.#held = true;
  }

  onNotice(notice: McpNotice): void {
    if (this.#ended) return;
    this.#queue.push(notice);
    this.#wake?.();
  }

  /** Resolves when a notice is queued (at once when one is waiting). */
  arrived(): Promise<void> {
    if (this.#queue.length > 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#wake = () => {
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** The queued notices, oldest first, and forgets them. */
  take(): McpNotice[] {
    const taken = this.#queue;
    this.#queue = [];
    return taken;
  }

  /** The run ended: it holds no connection any more, and what is said from now on is not its. */
  end(): void {
    this.#ended = true;
    this.#wake?.();
  }
}

/**
 * `stream`'s items with the run's MCP notices merged in as they arrive: a notice said while the graph waits (the model
 * thinking) is yielded then, not held until the graph's next step.
 */
export async function* withNotices<T>(
  stream: AsyncIterable<T>,
  notices: McpTurnNotices,
): AsyncGenerator<{ notice: McpNotice } | { value: T }> {
  const iterator = stream[Symbol.asyncIterator]();
  let next: Promise<IteratorResult<T>> | undefined = iterator.next();
  try {
    while (next) {
      // A run that holds no MCP connection hears nothing: its steps are awaited without the race (a dozen promises
      // a step, ~4% of a round trip). From the step in which it first calls a server on, it races the notices.
      const step = notices.held
        ? await Promise.race([next, notices.arrived().then(() => undefined)])
        : await next;
      for (const notice of notices.take()) yield { notice };
      if (step === undefined) continue;
      next = undefined;
      if (step.done) return;
      yield { value: step.value };
      next = iterator.next();
    }
  } finally {
    // Stopped early (by the consumer or an error): end the stream as `for await` would; a step still awaited may
    // reject once it is cancelled, and nobody waits for it any more.
    if (next) {
      next.catch(() => undefined);
      await iterator.return?.()?.catch(() => undefined);
    }
  }
}
