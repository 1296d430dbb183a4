/**
 * Text pieces pushed by notification handlers and read by one async loop, in order, until the producer ends it with
 * a result or fails it. Whatever comes first of `end` and `fail` settles it; later calls are ignored.
 */
export class TextQueue<R> implements AsyncIterable<string> {
  readonly #pieces: string[] = [];
  #wake: (() => void) | undefined;
  #settled = false;
  #error: { value: unknown } | undefined;
  result: R | undefined;

  push(piece: string): void {
    if (this.#settled || !piece) return;
    this.#pieces.push(piece);
    this.#wake?.();
  }

  end(result: R): void {
    if (this.#settled) return;
    this.#settled = true;
    this.result = result;
    this.#wake?.();
  }

  fail(error: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#error = { value: error };
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const piece = this.#pieces.shift();
      if (piece !== undefined) {
        yield piece;
        continue;
      }
      if (this.#error) throw this.#error.value;
      if (this.#settled) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }
}
