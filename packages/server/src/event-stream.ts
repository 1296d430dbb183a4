const encoder = new TextEncoder();

/**
 * A `text/event-stream` body: each event is `event: <type>` and `data: <one JSON line>`. Events pushed after the
 * client went away are dropped (the turn goes on; `POST …/cancel` stops it). A comment line every `keepAliveMs`
 * keeps proxies from closing a quiet stream.
 */
export class EventStream {
  readonly body: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private open = true;
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

  push(event: { type: string } & Record<string, unknown>): void {
    this.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }

  close(): void {
    if (!this.open) return;
    this.stop();
    try {
      this.controller.close();
    } catch {
      // Already closed by the client.
    }
  }

  private write(text: string): void {
    if (!this.open) return;
    try {
      this.controller.enqueue(encoder.encode(text));
    } catch {
      this.stop();
    }
  }

  private stop(): void {
    this.open = false;
    clearInterval(this.timer);
  }
}

export const EVENT_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};
