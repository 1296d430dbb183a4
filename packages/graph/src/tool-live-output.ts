import type { OutputChunk } from '@birdie/entrypoints';

/** At most one `tool-output` event per stream in this window, per call: about ten a second. */
export const LIVE_OUTPUT_INTERVAL_MS = 100;
/** The most text one `tool-output` event carries: the newest part of what arrived since the last one. */
export const LIVE_OUTPUT_MAX_CHARS = 4096;

type Stream = OutputChunk['stream'];

/**
 * Coalesces a running call's output into few, bounded pieces: what arrives within one interval is sent as one piece
 * per stream, and a piece keeps only the newest `LIVE_OUTPUT_MAX_CHARS` (a display shows the last lines). So a tool
 * printing megabytes costs the event stream ten small events a second, and this buffer never holds more than a few KB.
 */
export class LiveOutput {
  readonly #pending = new Map<Stream, string>();
  #timer: NodeJS.Timeout | undefined;
  #last = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(
    private readonly send: (stream: Stream, text: string) => void,
    private readonly intervalMs = LIVE_OUTPUT_INTERVAL_MS,
    private readonly maxChars = LIVE_OUTPUT_MAX_CHARS,
  ) {}

  /** The listener given to the running call (bound: it is passed around as a function). */
  readonly push = (chunk: OutputChunk): void => {
    if (this.#closed || !chunk.text) return;
    const text = (this.#pending.get(chunk.stream) ?? '') + chunk.text;
    // Trimmed only when well past the cap, so a stream of small chunks is not copied on every one.
    this.#pending.set(chunk.stream, text.length > 2 * this.maxChars ? tail(text, this.maxChars) : text);
    if (this.#timer) return;
    const wait = Math.max(0, this.#last + this.intervalMs - Date.now());
    this.#timer = setTimeout(() => this.#flush(), wait);
    this.#timer.unref?.();
  };

  /** Sends what is still pending and stops listening: called when the call ends, before its `tool-end`. */
  close(): void {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.size === 0) return;
    this.#last = Date.now();
    const pieces = [...this.#pending];
    this.#pending.clear();
    for (const [stream, text] of pieces) this.send(stream, tail(text, this.maxChars));
  }
}

/** The last `max` characters, from a line start when one is near, never starting inside a surrogate pair. */
export function tail(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(text.length - max);
  const nl = cut.indexOf('\n');
  if (nl >= 0 && nl < 200) cut = cut.slice(nl + 1);
  const first = cut.charCodeAt(0);
  return first >= 0xdc00 && first <= 0xdfff ? cut.slice(1) : cut;
}
