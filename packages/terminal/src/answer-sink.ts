/**
 * Where a streamed answer's text goes when it is not written as it comes: the REPL's Markdown renderer. `end()`
 * writes whatever is held and leaves the cursor at the start of a line (the answer is over, or something else is
 * about to be printed under it).
 */
export interface AnswerSink {
  push(text: string): void;
  end(): void;
}
