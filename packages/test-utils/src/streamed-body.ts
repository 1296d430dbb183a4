// A large file body a fake platform serves chunk by chunk, as fast as the client reads it, counting what it wrote:
// a test of a download cap can tell how much of it the client took before closing the connection.
import type { ServerResponse } from 'node:http';

const CHUNK = 64 * 1024;

export interface StreamedBodyOptions {
  /** Sent as `Content-Length` when given (the body is chunked otherwise: no size announced). */
  contentLength?: number;
}

export class StreamedBody {
  /** Bytes handed to the connection so far (what the client read, plus what socket buffers hold). */
  written = 0;
  /** Whether the client closed the connection before the whole body was written. */
  closedEarly = false;
  /** Resolves once the response is over: the whole body sent, or the connection closed. */
  readonly over: Promise<void>;
  private settle!: () => void;

  constructor(
    readonly totalBytes: number,
    readonly options: StreamedBodyOptions = {},
  ) {
    this.over = new Promise((resolve) => {
      this.settle = resolve;
    });
  }

  /** Writes the body into `res`, waiting for the client (backpressure), until it is all sent or the client leaves. */
  async serve(res: ServerResponse): Promise<void> {
    const { contentLength } = this.options;
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      ...(contentLength !== undefined ? { 'content-length': String(contentLength) } : {}),
    });
    let closed = false;
    res.once('close', () => {
      closed = true;
      this.closedEarly = this.written < this.totalBytes || !res.writableFinished;
      this.settle();
    });
    const chunk = Buffer.alloc(CHUNK, 0x61);
    while (!closed && this.written < this.totalBytes) {
      const part = chunk.subarray(0, Math.min(CHUNK, this.totalBytes - this.written));
      this.written += part.byteLength;
      if (!res.write(part)) await drainedOrClosed(res);
    }
    if (!closed) res.end();
  }
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
