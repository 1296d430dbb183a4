const encoder = new TextEncoder();

/**
 * A `text/event-stream` body: each event is `event: <type>` and `data: <one JSON line>`, after `id: <n>` when the
 * event is recorded in the store (the id a client resumes from with `Last-Event-ID`). Events pushed after the
 * client went away are dropped (the turn goes on; `POST …/cancel` stops it). A comment line every `keepAliveMs`
 * keeps proxies from closing a quiet stream.
 *
 * What is pushed in one step of the event loop leaves as one chunk, at the step's end (the check phase) or at
 * `close`: the HTTP server writes each chunk to the socket with a system call of its own, and a turn's events come
 * in bursts (a recorded batch, a run of tokens).
 */
export class EventStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private isOpen = true;
  private readonly timer: NodeJS.Timeout;
  /** Text pushed since the last chunk left, and the flush that sends it. */
  private pending = '';
  private flushing: NodeJS.Immediate | undefined;

  constructor(keepAliveMs = 15_000) {
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        this.stop();
      },
    });
    this.timer = setInterval(() => this.write(': keep-alive\n\n'), keepAliveMs);
    this.timer.unref();
  }

  /** Whether the client can still get events (it has not gone away, and the stream was not closed). */
  get open(): boolean {
    return this.isOpen;
  }

  push(event: { type: string } & Record<string, unknown>, id?: number): void {
    const head = id === undefined ? '' : `id: ${id}\n`;
    this.write(`${head}event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }

  /**
   * An `id:` alone: the client's last event id moves on without an event (SSE dispatches nothing for a block
   * without data). Sent when tokens the client already has are recorded, coalesced, under that id.
   */
  mark(id: number): void {
    this.write(`id: ${id}\n\n`);
  }

  close(): void {
    if (!this.isOpen) return;
    this.flush();
    this.stop();
    try {
      this.controller.close();
    } catch {
      // Already closed by the client.
    }
  }

  private write(text: string): void {
    if (!this.isOpen) return;
    this.pending += text;
    this.flushing ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    clearImmediate(this.flushing);
    this.flushing = undefined;
    if (!this.isOpen || this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    try {
      this.controller.enqueue(encoder.encode(text));
    } catch {
      this.stop();
    }
  }

  private stop(): void {
    this.isOpen = false;
    this.pending = '';
    clearImmediate(this.flushing);
    this.flushing = undefined;
    clearInterval(this.timer);
  }
}

export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
