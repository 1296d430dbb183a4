import type { Store, TurnEventRecord } from '@birdie/store';
import type { EventStream } from './event-stream.js';

export type StreamEvent = { type: string } & Record<string, unknown>;

/**
 * Records a running turn's events in the store (for replay on any worker) and streams them to the client that
 * submitted it, in one order: each event goes to the client once it is recorded, with its id. `token` events go to
 * the client at once (no id) and are recorded coalesced: consecutive tokens of one message (and agent) become one
 * event, written at the next other event or after `tokenFlushMs`, whose id then reaches the client alone
 * (`EventStream.mark`). When the store cannot take an event, the client still gets it, without an id.
 */
export class TurnRecorder {
  private chain: Promise<void> = Promise.resolve();
  private tokens: StreamEvent | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failed = false;

  constructor(
    private readonly store: Store,
    private readonly turnId: number,
    private readonly live: EventStream,
    private readonly options: { tokenFlushMs: number; onError(error: unknown): void },
  ) {}

  push(event: StreamEvent): void {
    if (event.type === 'token' && typeof event.text === 'string') {
      this.coalesce(event);
      this.inOrder(() => this.live.push(event));
      return;
    }
    this.flushTokens();
    this.inOrder(async () => {
      const [record] = await this.record([event]);
      this.live.push(event, record?.id);
    });
  }

  /** Records the last events, then the end (the turn's `status`), after everything pushed before. */
  async end(status: string, last: StreamEvent[]): Promise<void> {
    for (const event of last) this.push(event);
    this.inOrder(async () => {
      try {
        await this.store.turns.end(this.turnId, status);
      } catch (error) {
        this.fail(error);
      }
    });
    await this.chain;
  }

  private coalesce(token: StreamEvent): void {
    const open = this.tokens;
    if (open && sameMessage(open, token)) {
      open.text = `${open.text as string}${token.text as string}`;
    } else {
      this.flushTokens();
      this.tokens = { ...token };
    }
    this.timer ??= setTimeout(() => this.flushTokens(), this.options.tokenFlushMs);
  }

  private flushTokens(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const tokens = this.tokens;
    if (!tokens) return;
    this.tokens = undefined;
    this.inOrder(async () => {
      const [record] = await this.record([tokens]);
      if (record) this.live.mark(record.id);
    });
  }

  private async record(events: StreamEvent[]): Promise<Array<TurnEventRecord | undefined>> {
    try {
      return await this.store.turns.append(this.turnId, events);
    } catch (error) {
      this.fail(error);
      return [];
    }
  }

  /** Reported once: a store that fails keeps failing, and the client still gets its events. */
  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.options.onError(error);
  }

  private inOrder(step: () => void | Promise<void>): void {
    this.chain = this.chain.then(step).catch((error: unknown) => this.fail(error));
  }
}

function sameMessage(a: StreamEvent, b: StreamEvent): boolean {
  return JSON.stringify(a.agent) === JSON.stringify(b.agent);
}
