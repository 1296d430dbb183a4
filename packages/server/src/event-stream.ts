const encoder = new TextEncoder();

/**
 * A `text/event-stream` body: each event is `event: <type>` and `data: <one JSON line>`, after `id: <n>` when the
 * event is recorded in the store (the id a client resumes from with `Last-Event-ID`). Events pushed after the
 * client went away are dropped (the turn goes on; `POST …/cancel` stops it). A comment line every `keepAliveMs`
 * keeps proxies from closing a quiet stream.
 */
export class EventStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private isOpen = true;
  private readonly timer: NodeJS.Timeout;

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
    this.stop();
    try {
      this.controller.close();
    } catch {
      // Already closed by the client.
    }
  }

  private write(text: string): void {
    if (!this.isOpen) return;
    try {
      this.controller.enqueue(encoder.encode(text));
    } catch {
      this.stop();
    }
  }

  private stop(): void {
    this.isOpen = false;
    clearInterval(this.timer);
  }
}

export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
